/**
 * The {@code cuda} device of the task-graph API: Java kernels (their Aparapi twins) compiled for
 * CUDA, hand-written page moves, and plan-wide device buffers in the same CUDA context as the
 * page memory ({@link org.kvflow.cuda.CudaPageMemory}). Found through
 * {@link java.util.ServiceLoader}; callers name it as {@code cuda[:n]} through
 * {@link org.kvflow.kernels.api.Devices}.
 */
@NullMarked
package org.kvflow.cuda.graph;

import org.jspecify.annotations.NullMarked;

/**
 * Hand-written CUDA page copies launched through JCuda's driver API (the only module that imports
 * {@code jcuda}). Kernels are loaded from fatbins built by {@code nvcc} (sm_90 SASS + PTX), never
 * compiled at run time; the page memory is registered as the {@code cuda}
 * {@link org.kvflow.pages.PageMemoryProvider} through {@link java.util.ServiceLoader}.
 */
@NullMarked
package org.kvflow.cuda;

import org.jspecify.annotations.NullMarked;

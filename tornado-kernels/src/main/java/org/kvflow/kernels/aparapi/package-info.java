/**
 * The OpenCL kernel backend through Aparapi (Java bytecode → OpenCL C): one {@code Kernel}
 * twin per {@code *Kernels} method, explicit buffers, and a check after every launch that
 * OpenCL really ran it (Aparapi falls back to running Java threads without saying so).
 */
@NullMarked
package org.kvflow.kernels.aparapi;

import org.jspecify.annotations.NullMarked;

/**
 * The page-copy SPI: page buffers on some memory (Java heap, GPU device, pinned host) and the
 * copiers that move whole pages between them, with every page list checked (and every token-index
 * list validated as page-aligned groups, SPEC §9) before any copy starts. Implementations are
 * found by name through {@link java.util.ServiceLoader}: {@code java} here, {@code cuda} in the
 * cuda-fallback module.
 */
@NullMarked
package org.kvflow.kernels.copy;

import org.jspecify.annotations.NullMarked;

/**
 * Scalar encodings of contract §3.7: fp8 e4m3fn with round-to-nearest-even and saturation, bf16, and per-tile fp8 quantisation with fp32 scales. Static helpers over primitives, so kernels (Java or Aparapi) can call them.
 */
@NullMarked
package org.kvflow.kernels.quant;

import org.jspecify.annotations.NullMarked;

/**
 * Dense kernels a transformer layer needs beside the NSA ones: a batched strided matrix product with
 * gathered rows (tensor cores on cuda), a row softmax, and per-row norms, rotary embedding and the
 * Hadamard rotation.
 */
@NullMarked
package org.kvflow.kernels.linalg;

import org.jspecify.annotations.NullMarked;

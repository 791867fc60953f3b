/**
 * Compute kernels behind an API shaped like TornadoVM's task graphs (docs/decisions.md, D16): the plain Java references of page gather/scatter, fp8 quantisation, the NSA indexer and MLA sparse attention, and their Aparapi (OpenCL) twins. Filled by the operators and kernels issues; depends on core only.
 */
@NullMarked
package org.kvflow.kernels;

import org.jspecify.annotations.NullMarked;

/**
 * The synthetic NSA/MLA layer of contract §3.8 and the reference compute kernels on its stored rows: MLA and indexer row codecs, indexer scores with deterministic top-k, and MLA sparse attention (contract §7.1 determinism rules).
 */
@NullMarked
package org.kvflow.kernels.nsa;

import org.jspecify.annotations.NullMarked;

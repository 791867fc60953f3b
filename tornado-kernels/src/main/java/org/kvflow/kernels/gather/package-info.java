/**
 * Paged KV storage of one rank (one MLA and one indexer byte buffer per layer) and the page gather/scatter kernels that build a full view from owner pages and write pages back.
 */
@NullMarked
package org.kvflow.kernels.gather;

import org.jspecify.annotations.NullMarked;

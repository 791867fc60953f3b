/**
 * CP split of a batch's extend tokens across ranks (contract §5): in-seq zigzag and round-robin.
 */
@NullMarked
package org.kvflow.core.split;

import org.jspecify.annotations.NullMarked;

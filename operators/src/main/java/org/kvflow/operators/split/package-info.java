/**
 * The CP split stage (contract §5): which rank computes which query tokens of each batch.
 */
@NullMarked
package org.kvflow.operators.split;

import org.jspecify.annotations.NullMarked;

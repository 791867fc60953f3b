/**
 * Full-view materialization (contract §7): the referenced page set of a batch, gathered from the
 * owners' pages into a rank-local view after page-aligned validation, and the indexer + sparse
 * attention step run on that view.
 */
@NullMarked
package org.kvflow.operators.materialize;

import org.jspecify.annotations.NullMarked;

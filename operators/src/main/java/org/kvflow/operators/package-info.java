/**
 * The prefill pipeline's stages as Reactor operators (contract §13): admission, shard ownership, owner
 * writes, full-view materialization and PD transfer, over a shared {@link org.kvflow.operators.group.KvGroup}.
 * The request and result types of the pipeline live here.
 */
@NullMarked
package org.kvflow.operators;

import org.jspecify.annotations.NullMarked;

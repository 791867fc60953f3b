/**
 * The stages composed into one prefill pipeline over a {@link org.kvflow.operators.group.KvGroup}; the
 * DSL builds on this.
 */
@NullMarked
package org.kvflow.operators.pipeline;

import org.jspecify.annotations.NullMarked;

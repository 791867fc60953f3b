/**
 * The pages of one pipeline's CP group: {@link org.kvflow.operators.group.KvGroup} (accounting,
 * reservations, the prefix cache, rank loss) and the request and batch state its stages pass on.
 * Exported to the DSL alone: a user's way to these pages is a flow, never the group's mutators.
 */
@NullMarked
package org.kvflow.operators.group;

import org.jspecify.annotations.NullMarked;

/**
 * The pipeline stages as Reactor operators: admission, shard ownership, materialization, PD transfer and HiCache backup. The only module with Flux operators. Filled by the operators issue.
 */
@NullMarked
package org.kvflow.operators;

import org.jspecify.annotations.NullMarked;

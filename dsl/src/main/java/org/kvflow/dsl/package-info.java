/**
 * The public fluent DSL: KvFlow.prefill(config) ... build() yields a reusable PrefillPipeline over Flux. Filled by the DSL issue.
 */
@NullMarked
package org.kvflow.dsl;

import org.jspecify.annotations.NullMarked;

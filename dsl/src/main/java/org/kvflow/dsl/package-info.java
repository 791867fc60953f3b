/**
 * The public fluent DSL: {@code KvFlow.prefill(config)} → {@code admit} → {@code split} →
 * {@code own} → {@code materialize} → ({@code backup}) → {@code transfer} → {@code build()}, giving
 * a reusable {@link org.kvflow.dsl.PrefillPipeline} over {@code Flux}. Each step returns a new
 * immutable flow; {@code build()} checks contract §10 and the flow's shape and reports every problem at
 * once.
 */
@NullMarked
package org.kvflow.dsl;

import org.jspecify.annotations.NullMarked;

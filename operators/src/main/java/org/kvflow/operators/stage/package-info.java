/**
 * How a stage runs: a {@link org.kvflow.operators.stage.BatchStage} maps batch values, the
 * {@link org.kvflow.operators.stage.StageRunner} releases the pages of requests that failed in it
 * (the one place that does), and {@link org.kvflow.operators.stage.StageOperator} makes a stage a
 * Reactor operator.
 */
@NullMarked
package org.kvflow.operators.stage;

import org.jspecify.annotations.NullMarked;

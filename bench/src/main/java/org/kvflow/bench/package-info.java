/**
 * JMH benchmarks, shaded into bench/target/benchmarks.jar; every figure is a ratio against a baseline measured in the same run. Nothing depends on this module.
 */
@NullMarked
package org.kvflow.bench;

import org.jspecify.annotations.NullMarked;

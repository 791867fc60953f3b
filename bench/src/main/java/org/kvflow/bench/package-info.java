/**
 * Benchmarks, shaded into bench/target/benchmarks.jar; every figure is a ratio against a baseline
 * measured in the same run. Nothing depends on this module. {@code AdmissionBenchmark} and
 * {@code PipelineBenchmark} are JMH benchmarks. The I/O and GPU benchmarks ({@code JournalBench},
 * {@code TcpTransferBench}, the {@code bench/device} programs) stay plain programs: each phase moves
 * gigabytes once (an append, a warm and a cold replay with the page cache dropped between them, a
 * transfer through a decode server the run starts), alternating with its baseline in the same JVM,
 * which JMH's repeated, forked iterations of one method do not model; they print one JSON line per
 * run so the spread across runs is reported, not averaged away.
 */
@NullMarked
package org.kvflow.bench;

import org.jspecify.annotations.NullMarked;

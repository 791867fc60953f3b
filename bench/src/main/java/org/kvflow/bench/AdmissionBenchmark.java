package org.kvflow.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.kvflow.core.DebugMode;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.operators.admission.AdmissionCandidate;
import org.kvflow.operators.admission.AdmissionPass;
import org.kvflow.operators.admission.PrefillAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Admission decisions per second: one PrefillAdder pass over a queue of {@code queue} waiting
 * requests with shared KV and bs>1 on and budgets that admit them all, so every pass makes
 * {@code queue} {@code addOneReq} decisions. Decisions/s = ops/s × queue.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class AdmissionBenchmark {
    @Param({"16", "256"})
    int queue;

    private PrefillAdder adder;
    private List<AdmissionCandidate> candidates;

    @Setup(Level.Trial)
    public void setUp() {
        DebugMode.refuseBenchmark("AdmissionBenchmark");
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8).sharedKv(true).bsGt1(true)
                .chunkedPrefillSize(null).maxPrefillTokens(Long.MAX_VALUE / 4).build();
        adder = new PrefillAdder(config);
        SplittableRandom random = new SplittableRandom(1);
        candidates = new ArrayList<>();
        for (int i = 0; i < queue; i++) {
            candidates.add(new AdmissionCandidate("q" + i, 1 + random.nextInt(8192), 0, random.nextInt(512)));
        }
    }

    @Benchmark
    public AdmissionPass pass() {
        return adder.pass(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4, null, candidates);
    }
}

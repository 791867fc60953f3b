package org.kvflow.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.kvflow.core.DebugMode;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.kvflow.model.KvModel;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * End-to-end CPU pipeline: a 10k-request workload (1..{@code maxLen} tokens, a third continuing
 * an earlier prompt, prefix caching off) through admit → split → own → write → materialize → transfer on CP8, shared
 * KV vs the replicated baseline in the same run, with the same per-rank pool. {@code kv=toy}
 * computes and moves real bytes of the toy NSA layer (1 layer); {@code kv=plan} plans pages only.
 * Secondary results (JMH adds them over the measured runs): tokens and peak physical pages over
 * all ranks.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xmx6g"})
public class PipelineBenchmark {
    @Param({"SHARED", "REPLICATED"})
    PoolLayout layout;

    @Param({"toy", "plan"})
    String kv;

    @Param({"10000"})
    int requests;

    @Param({"1024"})
    int maxLen;

    private List<PrefillRequest> workload;
    private long tokens;

    /** Per-run figures JMH reports beside the time. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Figures {
        public long tokens;
        public long peakPhysicalPages;
    }

    @Setup(Level.Trial)
    public void setUp() {
        DebugMode.refuseBenchmark("PipelineBenchmark");
        SplittableRandom random = new SplittableRandom(42);
        workload = new ArrayList<>(requests);
        List<int[]> prompts = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            int[] base = !prompts.isEmpty() && random.nextInt(3) == 0 ? prompts.get(random.nextInt(prompts.size())) : new int[0];
            int len = Math.min(4 * maxLen, base.length + 1 + random.nextInt(maxLen));
            int[] t = new int[len];
            System.arraycopy(base, 0, t, 0, Math.min(base.length, len));
            for (int j = Math.min(base.length, len); j < len; j++) {
                t[j] = random.nextInt(32_000);
            }
            prompts.add(t);
            workload.add(new PrefillRequest("b" + i, t, random.nextInt(256)));
            tokens += len;
        }
    }

    @Benchmark
    public long pipeline(Figures figures) {
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8).pageSize(64).model(ModelKind.TOY_MLA)
                .sharedKv(true).bsGt1(true).maxRequests(16L).chunkedPrefillSize(8192L).build();
        KvModel model = kv.equals("toy") ? new SyntheticModel(new NsaDims(16, 40, 8, 24, 12), KvDtype.FP8_E4M3, 1, 7) : KvModel.pagesOnly();
        // Prefix caching off: a cache grows into all free memory, so peaks would measure the cache,
        // not the pages the requests need (and the two layouts differ cp-fold in free memory).
        KvGroup group = KvGroup.create(config, layout, PoolCapacity.ofPages(2048, 64), model, false);
        DecodeReceiver receiver = new DecodeReceiver(4096, 64, model.storesBytes() ? model.layout() : null);
        CpPrefillPipeline pipeline = CpPrefillPipeline.standard(group, new InMemoryTransferBackend(receiver), QuerySampler.NONE, 64);
        long done = reactor.core.publisher.Flux.fromIterable(workload).transform(pipeline)
                .doOnNext(result -> receiver.release(result.request().id()))
                .count().block(Duration.ofMinutes(10));
        figures.tokens = tokens;
        figures.peakPhysicalPages = group.peakPhysicalPages();
        return done;
    }
}

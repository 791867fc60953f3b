package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.kernels.api.Device;
import org.kvflow.pages.PageMemory;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.pages.RankPools;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.transfer.InMemoryTransferBackend;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;

/** The whole pipeline over a group whose pools come from a given source, for the rank-process tests on the heap and on the GPU. */
final class PipelineRuns {
    static final SyntheticModel MODEL = Workloads.toyModel(org.kvflow.core.model.KvDtype.FP8_E4M3, 2);
    static final int PAGES_PER_RANK = 128;

    private PipelineRuns() {}

    /** A group of {@code layout} pools from {@code pools}, in {@code memory}, with a prefix cache. */
    static KvGroup group(CpSharedKvConfig config, PoolLayout layout, PageMemory memory, RankPools pools) {
        return KvGroup.builder(config, layout, PoolCapacity.ofPages(PAGES_PER_RANK, config.pageSize())).model(MODEL).prefixCaching(true)
                .memory(memory).rankPools(pools).build();
    }

    /** Runs {@code requests} through the standard stages over {@code group}; {@code onBatch} sees each admitted batch first. */
    static List<PrefillResult> run(KvGroup group, Device kernels, DecodeReceiver receiver, List<PrefillRequest> requests, Consumer<PrefillBatch> onBatch) {
        CpPrefillPipeline pipeline = new CpPrefillPipeline(group, 32, CpPrefillPipeline.standardStages(group, new QuerySampler(2, 3), kernels),
                new InMemoryTransferBackend(receiver), null, onBatch, reactor.core.publisher.Mono::subscribe);
        return Flux.fromIterable(requests).transform(pipeline).collectList().block(Duration.ofMinutes(5));
    }

    /** A receiver large enough for every test's requests. */
    static DecodeReceiver receiver(CpSharedKvConfig config) {
        return new DecodeReceiver(8192, config.pageSize(), MODEL.layout());
    }

    /** Every request completed: the decode KV digest of each, by request id; every page came back. */
    static Map<String, Long> digests(CpSharedKvConfig config, PoolLayout layout, List<PrefillRequest> requests, PageMemory memory, RankPools pools,
                                     Device kernels) {
        try (KvGroup group = group(config, layout, memory, pools)) {
            DecodeReceiver receiver = receiver(config);
            List<PrefillResult> results = run(group, kernels, receiver, requests, batch -> { });
            Map<String, Long> digests = new HashMap<>();
            for (PrefillResult result : java.util.Objects.requireNonNull(results)) {
                assertThat(result).as(result.request().id()).isInstanceOf(PrefillResult.Completed.class);
                digests.put(result.request().id(), receiver.digest(result.request().id(), result.request().seqLen()));
            }
            assertThat(group.leakCheck()).isEmpty();
            return digests;
        }
    }
}

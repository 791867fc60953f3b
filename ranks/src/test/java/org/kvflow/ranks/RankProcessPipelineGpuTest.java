package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.pages.PageMemories;
import org.kvflow.kernels.pages.PageMemory;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.RankPools;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.operators.transfer.InMemoryTransferBackend;
import reactor.core.publisher.Flux;

/**
 * On the GPU machine: the whole pipeline with every CP rank's pools held by its own rank process
 * and opened in place (CUDA IPC), kernels on cuda: shared KV on rank processes decodes the same
 * KV as shared KV on pools of this process and as the replicated baseline, request by request,
 * and every page comes back.
 */
@Tag("cuda")
class RankProcessPipelineGpuTest {
    private static final KvModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    private static Map<String, Long> run(CpSharedKvConfig config, PoolLayout layout, List<PrefillRequest> requests, PageMemory memory,
                                         RankPools pools) {
        Device kernels = Devices.select("cuda");
        try (KvGroup group = KvGroup.builder(config, layout, PoolCapacity.ofPages(128, 16)).model(MODEL).prefixCaching(true).memory(memory)
                .rankPools(pools).build()) {
            DecodeReceiver receiver = new DecodeReceiver(8192, 16, MODEL.layout());
            CpPrefillPipeline pipeline = new CpPrefillPipeline(group, 32, CpPrefillPipeline.standardStages(group, new QuerySampler(2, 3), kernels),
                    new InMemoryTransferBackend(receiver), null, batch -> { });
            List<PrefillResult> results = Flux.fromIterable(requests).transform(pipeline).collectList().block(Duration.ofMinutes(5));
            Map<String, Long> digests = new HashMap<>();
            for (PrefillResult result : java.util.Objects.requireNonNull(results)) {
                assertThat(result).as(result.request().id()).isInstanceOf(PrefillResult.Completed.class);
                digests.put(result.request().id(), receiver.digest(result.request().id(), result.request().seqLen()));
            }
            assertThat(group.leakCheck()).isEmpty();
            return digests;
        }
    }

    @Test
    void sharedKvOnRankProcessesDecodesTheSameKvAsOnPoolsOfItsOwnAndAsReplicated() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, 64L);
        List<PrefillRequest> requests = Workloads.requests(11, 24, 300, 50);
        try (PageMemory cuda = PageMemories.open("cuda")) {
            Map<String, Long> processes = run(config, PoolLayout.SHARED, requests, cuda, new RankProcessPools("cuda", Duration.ofMinutes(1)));
            Map<String, Long> own = run(config, PoolLayout.SHARED, requests, cuda, RankPools.inProcess());
            Map<String, Long> replicated = run(config, PoolLayout.REPLICATED, requests, cuda, RankPools.inProcess());
            assertThat(processes).hasSize(requests.size()).isEqualTo(own).isEqualTo(replicated);
        }
    }
}

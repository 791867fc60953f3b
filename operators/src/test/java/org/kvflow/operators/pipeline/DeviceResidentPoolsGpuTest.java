package org.kvflow.operators.pipeline;

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
import org.kvflow.kernels.pages.HeapPageMemory;
import org.kvflow.kernels.pages.PageMemories;
import org.kvflow.kernels.pages.PageMemory;
import org.kvflow.kernels.pages.Residency;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.transfer.InMemoryTransferBackend;

/**
 * On the GPU machine: the pipeline with every CP rank's pools in device memory (the {@code cuda}
 * page memory) writes, gathers, attends on and sends the same bytes as with pools on the heap:
 * every request's decode KV and attention outputs are equal, and the device memory comes back.
 */
@Tag("cuda")
class DeviceResidentPoolsGpuTest {
    private static final KvModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    private record Run(Map<String, Long> digests, Map<String, Map<Long, float[]>> attention) {}

    private static Run run(CpSharedKvConfig config, List<PrefillRequest> requests, PageMemory memory, Residency expected) {
        try (KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(128, 16)).model(MODEL).prefixCaching(true)
                .memory(memory).build()) {
            assertThat(group.stores().rank(3).residency()).isEqualTo(expected);
            DecodeReceiver receiver = new DecodeReceiver(8192, 16, MODEL.layout());
            CpPrefillPipeline pipeline = CpPrefillPipeline.standard(group, new InMemoryTransferBackend(receiver), new QuerySampler(2, 3), 32);
            List<PrefillResult> results = reactor.core.publisher.Flux.fromIterable(requests).transform(pipeline).collectList()
                    .block(Duration.ofMinutes(5));
            Map<String, Long> digests = new HashMap<>();
            Map<String, Map<Long, float[]>> attention = new HashMap<>();
            for (PrefillResult result : results) {
                assertThat(result).as(result.request().id()).isInstanceOf(PrefillResult.Completed.class);
                digests.put(result.request().id(), receiver.digest(result.request().id(), result.request().seqLen()));
                attention.put(result.request().id(), ((PrefillResult.Completed) result).attention());
            }
            assertThat(group.leakCheck()).isEmpty();
            return new Run(digests, attention);
        }
    }

    @Test
    void rankPoolsInDeviceMemoryGiveTheSameDecodeKvAndAttention() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, 64L);
        List<PrefillRequest> requests = Workloads.requests(11, 24, 300, 50);
        Run heap = run(config, requests, new HeapPageMemory(), Residency.HEAP);
        try (PageMemory cuda = PageMemories.open("cuda")) {
            Run device = run(config, requests, cuda, Residency.DEVICE);
            assertThat(device.digests()).isEqualTo(heap.digests()).hasSize(requests.size());
            for (String id : heap.attention().keySet()) {
                assertThat(device.attention().get(id)).as(id).hasSameSizeAs(heap.attention().get(id));
                heap.attention().get(id).forEach((key, out) -> assertThat(device.attention().get(id).get(key)).isEqualTo(out));
            }
        }
    }
}

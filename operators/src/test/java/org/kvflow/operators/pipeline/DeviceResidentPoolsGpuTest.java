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
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.HostTraffic;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.Residency;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.kernels.rows.DeviceRowAccess;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * On the GPU machine: the pipeline with every CP rank's pools in device memory (the {@code cuda}
 * page memory) writes, gathers, attends on and sends the same bytes as with pools on the heap:
 * every request's decode KV and attention outputs are equal, and the device memory comes back.
 * With the cuda kernels as well, rows are stored and keys read in place: no page byte of the write
 * stage or of materialize and attention crosses the host.
 */
@Tag("cuda")
class DeviceResidentPoolsGpuTest {
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    private record Run(Map<String, Long> digests, Map<String, Map<Long, float[]>> attention) {}

    private static Run run(CpSharedKvConfig config, List<PrefillRequest> requests, PageMemory memory, Residency expected) {
        return run(config, requests, memory, expected, Devices.java());
    }

    private static Run run(CpSharedKvConfig config, List<PrefillRequest> requests, PageMemory memory, Residency expected, Device kernels) {
        try (KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(128, 16)).model(MODEL).prefixCaching(true)
                .memory(memory).build()) {
            assertThat(group.stores().rank(3).residency()).isEqualTo(expected);
            DecodeReceiver receiver = new DecodeReceiver(8192, 16, MODEL.layout());
            CpPrefillPipeline pipeline = new CpPrefillPipeline(group, 32, CpPrefillPipeline.standardStages(group, new QuerySampler(2, 3), kernels),
                    new InMemoryTransferBackend(receiver), null, batch -> { }, reactor.core.publisher.Mono::subscribe);
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

    @Test
    void withTheCudaKernelsRowsAndKeysStayOnTheDeviceAndGiveTheSameBytesAndOutputs() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, 64L);
        List<PrefillRequest> requests = Workloads.requests(11, 24, 300, 50);
        Device kernels = Devices.select("cuda");
        Run reference = run(config, requests, new HeapPageMemory(), Residency.HEAP);
        Run hostPath = run(config, requests, new HeapPageMemory(), Residency.HEAP, kernels);
        try (PageMemory cuda = PageMemories.open("cuda")) {
            assertThat(cuda.capability(DeviceRowAccess.class).map(a -> a.reaches(kernels))).contains(true);
            Run inPlace = run(config, requests, cuda, Residency.DEVICE, kernels);
            assertThat(inPlace.digests()).as("rows stored in place: the same bytes as the java rows").isEqualTo(reference.digests())
                    .hasSize(requests.size());
            for (String id : hostPath.attention().keySet()) {
                assertThat(inPlace.attention().get(id)).as(id).hasSameSizeAs(hostPath.attention().get(id));
                hostPath.attention().get(id).forEach((key, out) -> assertThat(inPlace.attention().get(id).get(key))
                        .as("keys read in place: the same outputs as keys decoded on the host, %s %d", id, key).isEqualTo(out));
            }
            HostTraffic traffic = cuda.hostTraffic();
            assertThat(traffic.bytes(OwnerWriteOperator.STAGE)).as("page bytes the write stage moved across the host").isZero();
            assertThat(traffic.bytes(MaterializeOperator.STAGE)).as("page bytes materialize and attention moved across the host").isZero();
            assertThat(traffic.bytes(InMemoryTransferBackend.STAGE)).as("the transfer reads owned pages through the host").isPositive();
        }
    }
}

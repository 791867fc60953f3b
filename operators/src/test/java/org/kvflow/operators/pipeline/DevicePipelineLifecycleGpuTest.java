package org.kvflow.operators.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.pages.OutOfDeviceMemoryException;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.transfer.InMemoryTransferBackend;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * On the GPU machine: a pipeline whose pools and views live in device memory gives every page and
 * every byte of device memory back whether it completes, fails mid-stream or is cancelled, and a
 * device without room for its pools refuses with the sizes named.
 */
@Tag("cuda")
class DevicePipelineLifecycleGpuTest {
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);
    /** Driver-side slack: the primary context's own allocations may differ by a few MiB between reads. */
    private static final long SLACK = 8L << 20;
    private static CudaPageMemory probe;

    @BeforeAll
    static void open() {
        probe = new CudaPageMemory(0);
    }

    @AfterAll
    static void close() {
        probe.close();
    }

    /** Runs {@code shape}(requests through the pipeline) on a fresh cuda memory; checks pages and buffers at the end. */
    private static void runAndCheck(Function<Flux<PrefillResult>, StepVerifier> shape, Flux<PrefillRequest> requests) {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, 64L);
        long before = probe.freeDeviceBytes();
        try (CudaPageMemory cuda = new CudaPageMemory(0)) {
            KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(128, 16)).model(MODEL).memory(cuda).build();
            int poolBuffers = 4 * MODEL.layerCount() * 2;
            assertThat(cuda.liveBuffers()).isEqualTo(poolBuffers);
            DecodeReceiver receiver = new DecodeReceiver(8192, 16, MODEL.layout());
            CpPrefillPipeline pipeline = CpPrefillPipeline.standard(group, new InMemoryTransferBackend(receiver), new QuerySampler(2, 3), 32);
            shape.apply(requests.transform(pipeline)).verify(Duration.ofMinutes(2));
            assertThat(group.leakCheck()).as("every page back in its pool").isEmpty();
            assertThat(group.physicalPagesInUse()).isZero();
            assertThat(cuda.liveBuffers()).as("the full views are freed; only the rank pools remain").isEqualTo(poolBuffers);
            group.close();
            assertThat(cuda.liveBuffers()).isZero();
        }
        assertThat(probe.freeDeviceBytes()).as("device memory back to its starting level").isGreaterThanOrEqualTo(before - SLACK);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"complete", "error", "cancel"})
    void everyDevicePageAndByteComesBack(String ending) {
        List<PrefillRequest> requests = Workloads.requests(3, 24, 300, 50);
        switch (ending) {
            case "complete" -> runAndCheck(results -> StepVerifier.create(results).expectNextCount(requests.size()).expectComplete(),
                    Flux.fromIterable(requests));
            case "error" -> runAndCheck(results -> StepVerifier.create(results).thenConsumeWhile(r -> true)
                            .expectErrorMessage("client went away after 10 requests"),
                    Flux.concat(Flux.fromIterable(requests.subList(0, 10)), Flux.error(new IllegalStateException("client went away after 10 requests"))));
            default -> runAndCheck(results -> StepVerifier.create(results, 0).thenRequest(3).expectNextCount(3).thenCancel(),
                    Flux.fromIterable(requests));
        }
    }

    @Test
    void poolsThatDoNotFitTheDeviceAreRefusedNamingTheSizes() {
        // DeepSeek V3.2 fp8 KV, 61 layers, page 64: 65,536 pages per rank is 201 GB a rank, more than one H200 holds
        SyntheticModel v32 = new SyntheticModel(NsaDims.REAL, KvDtype.FP8_E4M3, 61, 2026);
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8).pageSize(64).sharedKv(true).build();
        long before = probe.freeDeviceBytes();
        try (CudaPageMemory cuda = new CudaPageMemory(0)) {
            assertThatThrownBy(() -> KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(65_536, 64)).model(v32).memory(cuda).build())
                    .isInstanceOf(OutOfDeviceMemoryException.class)
                    .hasMessageStartingWith("page memory 'cuda' has no room for the pools of 8 CP ranks, 65536 pages of 64 tokens each (3076352 B a page,"
                            + " all layers); page memory 'cuda' has no room for rank 0 ")
                    .satisfies(e -> assertThat(((OutOfDeviceMemoryException) e).askedBytes()).isEqualTo(8L * 65_536 * 3_076_352));
            assertThat(cuda.liveBuffers()).as("the buffers that did fit are freed").isZero();
        }
        assertThat(probe.freeDeviceBytes()).isGreaterThanOrEqualTo(before - SLACK);
    }
}

package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.pages.RankPools;
import org.kvflow.operators.Workloads;

/**
 * On the GPU machine: the whole pipeline with every CP rank's pools held by its own rank process
 * and opened in place (CUDA IPC), kernels on cuda: shared KV on rank processes decodes the same
 * KV as shared KV on pools of this process and as the replicated baseline, request by request,
 * and every page comes back; a rank killed mid-batch fails the requests it held pages of, and the
 * same group serves again once it is restarted.
 */
@Tag("cuda")
class RankProcessPipelineGpuTest {
    @Test
    void sharedKvOnRankProcessesDecodesTheSameKvAsOnPoolsOfItsOwnAndAsReplicated() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, 64L);
        List<PrefillRequest> requests = Workloads.requests(11, 24, 300, 50);
        Device kernels = Devices.select("cuda");
        try (PageMemory cuda = PageMemories.open("cuda")) {
            Map<String, Long> processes = PipelineRuns.digests(config, PoolLayout.SHARED, requests, cuda,
                    new RankProcessPools("cuda", Duration.ofMinutes(1)), kernels);
            Map<String, Long> own = PipelineRuns.digests(config, PoolLayout.SHARED, requests, cuda, RankPools.inProcess(), kernels);
            Map<String, Long> replicated = PipelineRuns.digests(config, PoolLayout.REPLICATED, requests, cuda, RankPools.inProcess(), kernels);
            assertThat(processes).hasSize(requests.size()).isEqualTo(own).isEqualTo(replicated);
        }
    }

    @Test
    void aRankKilledMidBatchFailsItsRequestsAndTheGroupServesOnceItIsRestarted() {
        try (PageMemory cuda = PageMemories.open("cuda")) {
            RankFaults.killMidBatchThenRestart(cuda, "cuda", Devices.select("cuda"));
        }
    }
}

package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.pages.RankPools;
import org.kvflow.operators.Workloads;

/**
 * The whole pipeline on rank processes whose pools this process cannot open in place (heap
 * ranks, no GPU): every stage reaches them by staged copies over the control connections, the
 * decode KV equals that of pools of this process and of the replicated baseline, and the staged
 * bytes are counted by stage; a rank killed mid-batch fails the requests it held pages of, and the
 * same group serves again once it is restarted.
 */
class RankProcessPipelineTest {
    @Test
    void sharedKvOnStagedRankProcessesDecodesTheSameKvAsOnPoolsOfItsOwnAndAsReplicated() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, 64L);
        List<PrefillRequest> requests = Workloads.requests(11, 12, 200, 50);
        HeapPageMemory heap = new HeapPageMemory();
        RankProcessPools pools = new RankProcessPools("java", Duration.ofSeconds(30));
        Map<String, Long> processes = PipelineRuns.digests(config, PoolLayout.SHARED, requests, heap, new StagedCounts(pools), Devices.java());
        Map<String, Long> own = PipelineRuns.digests(config, PoolLayout.SHARED, requests, heap, RankPools.inProcess(), Devices.java());
        Map<String, Long> replicated = PipelineRuns.digests(config, PoolLayout.REPLICATED, requests, heap, RankPools.inProcess(), Devices.java());
        assertThat(processes).hasSize(requests.size()).isEqualTo(own).isEqualTo(replicated);
        assertThat(StagedCounts.last).as("staged bytes by stage").containsKeys("kvflow.write", "kvflow.materialize", "kvflow.transfer")
                .allSatisfy((stage, bytes) -> assertThat(bytes).as(stage).isPositive());
    }

    @Test
    void aRankKilledMidBatchFailsItsRequestsAndTheGroupServesOnceItIsRestarted() {
        RankFaults.killMidBatchThenRestart(new HeapPageMemory(), "java", Devices.java());
    }

    /** The rank pools, and the staged bytes by stage they moved, read when the group closes them. */
    private record StagedCounts(RankProcessPools pools) implements RankPools {
        static Map<String, Long> last = Map.of();

        @Override
        public List<org.kvflow.pages.PageStore> open(org.kvflow.pages.PageMemory memory, org.kvflow.core.model.KvLayout kv, int ranks,
                                                             int pageSize, int pagesPerRank) {
            return pools.open(memory, kv, ranks, pageSize, pagesPerRank);
        }

        @Override
        public void listen(Listener listener) {
            pools.listen(listener);
        }

        @Override
        public void close() {
            pools.processes().ifPresent(p -> last = p.stagedBytesByStage());
            pools.close();
        }
    }
}

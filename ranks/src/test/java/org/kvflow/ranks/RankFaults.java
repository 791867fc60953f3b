package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.kernels.api.Device;
import org.kvflow.pages.PageMemory;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.pages.RankPools;
import org.kvflow.operators.Workloads;

/** A rank process killed while the pipeline runs, then restarted: the fault proof shared by the heap and GPU tests. */
final class RankFaults {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int VICTIM = 2;

    private RankFaults() {}

    /**
     * Kills rank 2's process when the third batch is admitted: every request either completes with
     * the KV of a run on pools of this process, or fails naming rank 2 ({@code RANK-LOST}); every
     * page comes back; then the rank is restarted and the same group runs every prompt again (the
     * prefix cache still holds the completed ones, minus the pages rank 2 lost), all completing
     * with the same KV.
     */
    static void killMidBatchThenRestart(PageMemory memory, String rankMemory, Device kernels) {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 4, 64L);
        List<PrefillRequest> requests = Workloads.requests(5, 16, 240, 50);
        Map<String, Long> expected = PipelineRuns.digests(config, PoolLayout.SHARED, requests, memory, RankPools.inProcess(), kernels);
        RankProcessPools pools = new RankProcessPools(rankMemory, TIMEOUT);
        try (KvGroup group = PipelineRuns.group(config, PoolLayout.SHARED, memory, pools)) {
            RankProcesses ranks = pools.processes().orElseThrow();
            DecodeReceiver receiver = PipelineRuns.receiver(config);
            AtomicInteger batches = new AtomicInteger();
            List<PrefillResult> first = PipelineRuns.run(group, kernels, receiver, requests, batch -> {
                if (batches.incrementAndGet() == 3) {
                    kill(ranks, VICTIM);
                }
            });
            assertThat(batches.get()).as("batches admitted").isGreaterThan(3);
            assertThat(first.stream().map(r -> r.request().id())).as("one result per request, none twice")
                    .doesNotHaveDuplicates().hasSize(requests.size());
            List<PrefillResult.Failed> failed = first.stream().filter(PrefillResult.Failed.class::isInstance).map(PrefillResult.Failed.class::cast).toList();
            assertThat(failed).as("requests that held pages on rank %d", VICTIM).isNotEmpty().allSatisfy(f -> {
                assertThat(f.error()).isInstanceOf(RankLostException.class).hasMessageStartingWith("rank " + VICTIM + " is lost: ");
                assertThat(((RankLostException) f.error()).code()).isEqualTo("RANK-LOST");
            });
            for (PrefillResult r : first) {
                if (r instanceof PrefillResult.Completed) {
                    assertThat(receiver.digest(r.request().id(), r.request().seqLen())).as(r.request().id()).isEqualTo(expected.get(r.request().id()));
                }
            }
            assertThat(group.leakCheck()).as("every reservation released").isEmpty();

            pools.restart(VICTIM);
            List<PrefillRequest> again = requests.stream().map(r -> new PrefillRequest(r.id() + "-again", r.tokenIds(), r.maxNew())).toList();
            List<PrefillResult> second = PipelineRuns.run(group, kernels, receiver, again, batch -> { });
            assertThat(second).hasSize(requests.size()).allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
            for (PrefillRequest r : requests) {
                assertThat(receiver.digest(r.id() + "-again", r.seqLen())).as("%s after the restart", r.id()).isEqualTo(expected.get(r.id()));
            }
            assertThat(group.leakCheck()).isEmpty();
        }
    }

    /** Ends rank {@code rank}'s process and waits until the coordinator has lost it. */
    static void kill(RankProcesses ranks, int rank) {
        ProcessHandle.of(ranks.pid(rank)).orElseThrow().destroyForcibly();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (ranks.lost(rank).isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
        }
        assertThat(ranks.lost(rank)).as("rank %d lost within %s", rank, TIMEOUT).isPresent();
    }
}

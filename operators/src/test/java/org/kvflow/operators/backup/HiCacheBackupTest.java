package org.kvflow.operators.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import org.kvflow.kernels.rows.DevicePools;
import org.kvflow.model.KvModel;
import org.kvflow.model.synthetic.SyntheticModel;

class HiCacheBackupTest {
    private static final CpSharedKvConfig CONFIG = Workloads.sharedBsGt1(4, 16, 4, 64L);
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    @TempDir
    Path dir;

    private record Run(KvGroup group, DecodeReceiver receiver, HiCacheBackupOperator backup) {}

    private Run run(List<PrefillRequest> requests, WritePolicy policy) {
        return run(requests, policy, 1024);
    }

    private Run run(List<PrefillRequest> requests, WritePolicy policy, int decodePages) {
        // -Dkvflow.test.device=cuda: the pools in GPU memory, backed up through pinned staging
        KvGroup group = KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(64, 16)).model(MODEL).prefixCaching(true)
                .memory(DevicePools.memoryFor(Workloads.testDevice())).build();
        DecodeReceiver receiver = new DecodeReceiver(decodePages, 16, MODEL.layout());
        try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, new JournalLayout(16, MODEL.layout())))) {
            HiCacheBackupOperator backup = new HiCacheBackupOperator(group, journal, policy);
            CpPrefillPipeline pipeline = Workloads.withBackup(group, new InMemoryTransferBackend(receiver), backup);
            StepVerifier.create(Flux.fromIterable(requests).transform(pipeline))
                    .thenConsumeWhile(r -> r instanceof org.kvflow.operators.PrefillResult.Completed)
                    .verifyComplete();
            return new Run(group, receiver, backup);
        }
    }

    private HostPageCache replay() {
        HostPageCache cache = new HostPageCache(1L << 30);
        ReplayReport report = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, cache, (n, b) -> { });
        assertThat(report.rejected()).isEmpty();
        return cache;
    }

    @Test
    void writeThroughJournalsEveryFullPageWithTheBytesDecodeReceived() {
        List<PrefillRequest> requests = Workloads.requests(21, 10, 120, 30);
        Run run = run(requests, WritePolicy.WRITE_THROUGH);
        HostPageCache cache = replay();
        PageStore decoded = run.receiver().store();
        int fullPages = 0;
        for (PrefillRequest request : requests) {
            List<byte[]> hashes = PageHashChain.fullPageHashes(request.tokenIds(), 16);
            long[] d = run.receiver().pages(request.id());
            for (int pos = 0; pos < hashes.size(); pos++) {
                PageBackup kv = cache.get(hashes.get(pos), HiCachePool.KV);
                PageBackup index = cache.get(hashes.get(pos), HiCachePool.INDEXER);
                assertThat(kv).as("page %d of %s", pos, request.id()).isNotNull();
                assertThat(index).isNotNull();
                for (int l = 0; l < 2; l++) {
                    int mlaBytes = decoded.mlaPageBytes();
                    int indexBytes = decoded.indexPageBytes();
                    assertThat(Arrays.copyOfRange(kv.payload(), l * mlaBytes, (l + 1) * mlaBytes))
                            .isEqualTo(decoded.readPage(l, KvComponent.MLA, d[pos]));
                    assertThat(Arrays.copyOfRange(index.payload(), l * indexBytes, (l + 1) * indexBytes))
                            .isEqualTo(decoded.readPage(l, KvComponent.INDEX, d[pos]));
                }
            }
            fullPages += hashes.size();
            assertThat(cache.matchPrefix(hashes)).isEqualTo(hashes.size());
        }
        assertThat(run.backup().pagesJournaled()).isPositive().isLessThanOrEqualTo(2L * fullPages);
        PageStore rank0 = run.group().stores().rank(0);
        long staged = run.backup().pagesJournaled() / 2 * rank0.layers() * (rank0.mlaPageBytes() + rank0.indexPageBytes());
        assertThat(rank0.memory().hostTraffic().bytes(HiCacheBackupOperator.STAGE))
                .as("device pools: each journaled page crossed once, in the staging gather; heap pools: nothing crosses")
                .isEqualTo(rank0.residency() == org.kvflow.pages.Residency.DEVICE ? staged : 0L);
        assertThat(run.backup().failures()).isZero();
        assertThat(run.group().leakCheck()).isEmpty();
    }

    /** A long-lived stage keeps hit counts and journaled pages for a bounded number of pages, however many distinct pages it sees. */
    @Test
    void whatTheStageRemembersOfPagesIsBounded() {
        List<PrefillRequest> requests = new java.util.ArrayList<>(); // 11 full pages each, every chain its own: 1,320 distinct pages
        for (int i = 0; i < 120; i++) {
            int[] tokens = new int[176];
            int first = i;
            Arrays.setAll(tokens, t -> t == 0 ? first : t);
            requests.add(new PrefillRequest("r" + i, tokens, 0));
        }
        Run run = run(requests, WritePolicy.WRITE_THROUGH, 2048); // decode keeps every request: room for them all
        int bound = HiCacheBackupOperator.MIN_REMEMBERED; // this group's 4 x 64 pages, times 4, is below the floor
        assertThat(run.backup().remembered()).as("hit counts, journaled pages").containsExactly(bound, bound);
        assertThat(run.backup().pagesJournaled()).as("every page journaled once, both pools").isEqualTo(2L * 120 * 11);
        assertThat(run.group().leakCheck()).isEmpty();
    }

    @Test
    void selectiveWriteThroughWaitsForTheSecondHit() {
        int[] base = new int[48];
        Arrays.setAll(base, i -> i + 1);
        int[] longer = Arrays.copyOf(base, 70);
        PrefillRequest first = new PrefillRequest("first", base, 0);
        PrefillRequest second = new PrefillRequest("second", longer, 0);
        // one at a time (bs 1): the second sees the first's pages in the device cache
        Run run = run(List.of(first, second), WritePolicy.WRITE_THROUGH_SELECTIVE);
        HostPageCache cache = replay();
        List<byte[]> baseHashes = PageHashChain.fullPageHashes(base, 16);
        List<byte[]> longerHashes = PageHashChain.fullPageHashes(longer, 16);
        // the prompt's 3 full pages were reused by "second" (hit 2): backed up; "second"'s own page 3 (hit 1): not
        for (int pos = 0; pos < 3; pos++) {
            assertThat(cache.usable(baseHashes.get(pos))).isTrue();
        }
        assertThat(cache.get(longerHashes.get(3), HiCachePool.KV)).isNull();
        assertThat(run.backup().pagesJournaled()).isEqualTo(6);
    }

    @Test
    void writeBackIsRefusedWithTheReason() {
        KvGroup group = KvGroup.create(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), MODEL, true);
        try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, new JournalLayout(16, MODEL.layout())))) {
            assertThatThrownBy(() -> new HiCacheBackupOperator(group, journal, WritePolicy.WRITE_BACK))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("write_back backs pages up when the device cache evicts them; "
                            + "this stage sees finished requests only: use write_through or write_through_selective");
        }
    }

    @Test
    void aGroupWithoutKvBytesHasNothingToBackUp() {
        KvGroup group = KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16)).model(KvModel.pagesOnly()).build();
        assertThatThrownBy(() -> HiCacheBackupOperator.journaling(group, dir, WritePolicy.WRITE_THROUGH)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the backup stage journals KV bytes: the group's model stores none");
        assertThat(dir).as("no journal was opened for it").isEmptyDirectory();
    }

    @Test
    void replaySourceStreamsPagesWithBackpressureAndCancels() {
        run(Workloads.requests(22, 4, 60, 30), WritePolicy.WRITE_THROUGH);
        long total = JournalReplayer.info(dir).records();
        StepVerifier.create(JournalReplaySource.backups(dir, ReplayStart.fromStart()), 0)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(50))
                .thenRequest(1)
                .assertNext(page -> assertThat(page.pool()).isEqualTo(HiCachePool.KV))
                .thenRequest(1)
                .assertNext(page -> assertThat(page.pool()).isEqualTo(HiCachePool.INDEXER))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        StepVerifier.create(JournalReplaySource.backups(dir, ReplayStart.fromStart()))
                .expectNextCount(total)
                .verifyComplete();
    }
}

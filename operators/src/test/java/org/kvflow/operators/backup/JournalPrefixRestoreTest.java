package org.kvflow.operators.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.journal.TestPages;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.operators.group.RankStores;
import org.kvflow.operators.Workloads;
import org.kvflow.kernels.rows.DevicePools;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * A prefix restored from the journal lands, byte for byte, where the rank stores keep each page;
 * pages of other prompts are passed by, a refused record never reaches a store, and the usable
 * prefix ends at the first page that is not whole.
 */
class JournalPrefixRestoreTest {
    private static final int CP = 4;
    private static final int PER_RANK = 12;

    @TempDir
    Path dir;

    private List<Long> write(List<PageBackup> pages) {
        return TestPages.write(dir, pages, 0);
    }

    /** The test device's page memory: the heap in CI, the GPU with {@code -Dkvflow.test.device=cuda} (staging then pinned). */
    private static PageMemory memory() {
        return DevicePools.memoryFor(Workloads.testDevice());
    }

    private static RankStores stores(PageMemory memory, PoolLayout layout) {
        return RankStores.allocate(memory, TestPages.LAYOUT.layout(), new OwnershipMap(CP, TestPages.PS), layout, PER_RANK);
    }

    private JournalPrefixRestore.Report restore(RankStores stores, int batch, int readers, List<byte[]> hashes, int[] ids) {
        try (JournalPrefixRestore restore = new JournalPrefixRestore(stores, batch, readers)) {
            return restore.restore(dir, hashes, ids);
        }
    }

    private static List<byte[]> hashes(List<PageBackup> pages) {
        return pages.stream().filter(p -> p.pool() == HiCachePool.KV).map(PageBackup::pageHash).toList();
    }

    /** Distinct logical pages out of order, spread over every rank under shared KV (a replicated rank holds every page, so fewer ids). */
    private static int[] ids(int n, PoolLayout layout) {
        int capacity = layout == PoolLayout.SHARED ? CP * PER_RANK : PER_RANK;
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = (i * 7 + 3) % capacity;
        }
        return ids;
    }

    private static void assertStored(RankStores stores, PageBackup page, int id) {
        KvComponent component = KvComponent.of(page.pool());
        for (int r : stores.ranksStoring(id)) {
            assertThat(stores.rank(r).readPage(component, stores.physicalPage(id))).as("%s on rank %d", page, r).isEqualTo(page.payload());
        }
    }

    @Test
    void everyPageLandsOnTheRanksThatStoreItAndOtherPromptsArePassedBy() {
        List<PageBackup> prefix = TestPages.prompt(1, 10);
        List<PageBackup> journal = new ArrayList<>(TestPages.prompt(2, 3));
        journal.addAll(prefix);
        write(journal);
        for (PoolLayout layout : PoolLayout.values()) {
            int[] ids = ids(10, layout);
            try (PageMemory memory = memory(); RankStores stores = stores(memory, layout)) {
                JournalPrefixRestore.Report report = restore(stores, 3, 2, hashes(prefix), ids);
                assertThat(report.pages()).isEqualTo(10);
                assertThat(report.restoredPrefix()).isEqualTo(10);
                assertThat(report.refused()).isEmpty();
                assertThat(report.recordsRead()).isEqualTo(26);
                assertThat(report.payloadBytes()).isEqualTo(prefix.stream().mapToLong(PageBackup::payloadLength).sum());
                for (int i = 0; i < prefix.size(); i++) {
                    assertStored(stores, prefix.get(i), ids[i / 2]);
                }
                long copies = layout == PoolLayout.SHARED ? 1 : CP;
                assertThat(memory.hostTraffic().bytes(JournalPrefixRestore.STAGE)).as("bytes from staging into device pools")
                        .isEqualTo(memory.name().equals("java") ? 0 : copies * report.payloadBytes());
            }
        }
    }

    @Test
    void aRefusedRecordNeverReachesAStoreAndThePrefixEndsBeforeIt() throws IOException {
        List<PageBackup> prefix = TestPages.prompt(3, 6);
        List<Long> indices = write(prefix);
        PageBackup bad = prefix.get(8); // page 4's kv pool
        TestPages.flipByteOf(dir, bad.payload());
        int[] ids = ids(6, PoolLayout.SHARED);
        try (PageMemory memory = memory(); RankStores stores = stores(memory, PoolLayout.SHARED)) {
            JournalPrefixRestore.Report report = restore(stores, 2, 3, hashes(prefix), ids);
            assertThat(report.restoredPrefix()).isEqualTo(4);
            assertThat(report.refused()).hasSize(1);
            assertThat(report.refused().getFirst().index()).isEqualTo(indices.get(8));
            assertThat(report.refused().getFirst().reason()).startsWith("crc32c mismatch");
            assertThat(stores.rank(stores.holder(ids[4])).readPage(KvComponent.MLA, stores.physicalPage(ids[4])))
                    .as("the refused page's kv bytes").containsOnly((byte) 0);
            assertStored(stores, prefix.get(9), ids[4]);
            assertStored(stores, prefix.get(10), ids[5]);
            assertStored(stores, prefix.get(11), ids[5]);
        }
    }

    @Test
    void aPageMissingFromTheJournalEndsTheUsablePrefix() {
        List<PageBackup> prefix = TestPages.prompt(4, 5);
        List<PageBackup> journaled = new ArrayList<>(prefix);
        journaled.remove(5); // page 2's indexer pool was never backed up
        write(journaled);
        try (PageMemory memory = memory(); RankStores stores = stores(memory, PoolLayout.SHARED)) {
            JournalPrefixRestore.Report report = restore(stores, 4, 1, hashes(prefix), ids(5, PoolLayout.SHARED));
            assertThat(report.restoredPrefix()).isEqualTo(2);
            assertThat(report.refused()).isEmpty();
        }
    }

    @Test
    void recordsOfAnotherLayoutAreRefusedNamingBoth() {
        List<PageBackup> prefix = TestPages.prompt(5, 1);
        List<Long> indices = write(prefix);
        KvLayout threeLayers = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 3, 40, 8, 24), KvDtype.FP8_E4M3);
        try (PageMemory memory = memory(); RankStores stores = RankStores.allocate(memory, threeLayers, new OwnershipMap(CP, TestPages.PS), PoolLayout.SHARED,
                PER_RANK)) {
            JournalPrefixRestore.Report report = restore(stores, 4, 2, hashes(prefix), new int[] {0});
            assertThat(report.restoredPrefix()).isZero();
            PageBackup kv = prefix.getFirst();
            long expected = 3L * threeLayers.mlaPageBytes(TestPages.PS);
            assertThat(report.refused()).hasSize(2);
            assertThat(report.refused().getFirst().index()).isEqualTo(indices.getFirst());
            assertThat(report.refused().getFirst().reason()).isEqualTo("page " + kv.key() + " of 4 tokens x 2 layers, " + kv.payloadLength()
                    + " B does not fit the stores (4 x 3, " + expected + " B)");
        }
    }

    /** A warm start fills the prefix cache with the journaled pages of a prompt, as many as the pools hold. */
    @Test
    void aWarmStartCachesTheRestoredPagesAndOnlyWhatFits() {
        List<PageBackup> prefix = TestPages.prompt(6, 10);
        write(prefix);
        int[] tokens = new int[10 * TestPages.PS];
        for (int p = 0; p < 10; p++) {
            System.arraycopy(prefix.get(2 * p).tokenIds(), 0, tokens, p * TestPages.PS, TestPages.PS);
        }
        org.kvflow.core.config.CpSharedKvConfig config = org.kvflow.core.config.CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(2)
                .pageSize(TestPages.PS).model(ModelKind.TOY_MLA).sharedKv(true).build();
        SyntheticModel toy = new SyntheticModel(new org.kvflow.kernels.nsa.NsaDims(16, 40, 8, 24, 12),
                KvDtype.FP8_E4M3, 2, 3);
        try (PageMemory memory = memory();
             org.kvflow.operators.group.KvGroup group = org.kvflow.operators.group.KvGroup.builder(config, PoolLayout.SHARED,
                     org.kvflow.core.pool.PoolCapacity.ofPages(3, TestPages.PS)).model(toy).prefixCaching(true).memory(memory).build()) {
            long fits = group.budgetTokens() / TestPages.PS;
            assertThat(fits).as("the pools hold fewer pages than the prompt has").isLessThan(10);
            List<Long> cached = WarmStart.restore(group, dir, List.of(tokens));
            assertThat(cached).containsExactly(fits * TestPages.PS);
            assertThat(group.cachedPages()).isEqualTo((int) fits);
            assertThat(group.leakCheck()).isEmpty();
        }
    }

    @Test
    void badArgumentsAreRefusedNamingTheValues() {
        try (PageMemory memory = memory(); RankStores stores = stores(memory, PoolLayout.SHARED)) {
            assertThatThrownBy(() -> new JournalPrefixRestore(stores, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("batchPages and readers must be >= 1, were 0, 1");
            try (JournalPrefixRestore restore = new JournalPrefixRestore(stores, 2, 1)) {
                byte[] hash = hashes(TestPages.prompt(7, 1)).getFirst();
                assertThatThrownBy(() -> restore.restore(dir, List.of(hash, hash), new int[] {1})).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("2 page hashes for 1 page ids");
                assertThatThrownBy(() -> restore.restore(dir, List.of(new byte[3]), new int[] {1})).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("page hash 0 has 3 bytes, not 32");
            }
        }
    }

    @Test
    void aWarmStartNeedsThePrefixCache() {
        org.kvflow.core.config.CpSharedKvConfig config = org.kvflow.core.config.CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(2)
                .pageSize(TestPages.PS).model(ModelKind.TOY_MLA).sharedKv(true).build();
        try (org.kvflow.operators.group.KvGroup group = org.kvflow.operators.group.KvGroup.builder(config, PoolLayout.SHARED,
                org.kvflow.core.pool.PoolCapacity.ofPages(3, TestPages.PS)).prefixCaching(false).build()) {
            assertThatThrownBy(() -> group.warmPages(List.of())).isInstanceOf(IllegalStateException.class)
                    .hasMessage("a warm start fills the device prefix cache: the group needs prefix caching and a model");
        }
    }
}

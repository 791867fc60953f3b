package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;

/**
 * What a caller hands the journal is checked before anything is written: each refusal by its exact
 * message, and a journal that refused a call still takes the next one, at the index it reports.
 */
class JournalArgumentsTest {
    private static final byte[] HASH = new byte[32];

    @TempDir
    Path dir;

    @Test
    void aLayoutWithoutAnIndexerOrPagesIsRefused() {
        KvLayout plainMla = new KvLayout(new ModelShape("mla", ModelKind.MLA, 2, 512, 64, 0), KvDtype.FP8_E4M3);
        assertThatThrownBy(() -> new JournalLayout(4, plainMla)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("HiCache journals hold NSA MLA pages (kv + indexer)");
        assertThatThrownBy(() -> new JournalLayout(0, TestPages.LAYOUT.layout())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pageSize must be >= 1, was 0");
    }

    @Test
    void aBackupWithAMalformedFieldIsRefusedNamingIt() {
        assertThatThrownBy(() -> new PageBackup(new byte[31], null, new int[] {1}, 0, 0, 1, HiCachePool.KV, new byte[8]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pageHash must be 32 bytes, was 31");
        assertThatThrownBy(() -> new PageBackup(HASH, new byte[33], new int[] {1}, 0, 0, 1, HiCachePool.KV, new byte[8]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("parentHash must be 32 bytes, was 33");
        assertThatThrownBy(() -> new PageBackup(HASH, null, new int[0], 0, 0, 1, HiCachePool.KV, new byte[8]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a page has at least one token");
        assertThatThrownBy(() -> new PageBackup(HASH, null, new int[] {1}, -1, 0, 1, HiCachePool.KV, new byte[8]))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("layerCount, ownerRank and position must be >= 1, 0, 0; were 1, -1, 0");
    }

    @Test
    void anEvictionOrCheckpointItCannotRecordIsRefusedAndTheJournalGoesOn() {
        try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
            long next = journal.nextIndex();
            assertThatThrownBy(() -> journal.evictHost(new byte[16])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("pageHash must be 32 bytes, was 16");
            assertThatThrownBy(() -> journal.checkpoint(next + 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("firstNeededIndex " + Long.toHexString(next + 1) + " lies beyond the next index " + Long.toHexString(next));
            assertThat(journal.nextIndex()).as("nothing was written for the refused calls").isEqualTo(next);
            assertThat(journal.evictHost(HASH)).as("the index the next record takes").isEqualTo(next);
            assertThat(journal.lastIndex()).isEqualTo(next);
            long checkpointAt = journal.nextIndex();
            assertThat(journal.checkpoint(next)).isEqualTo(journal.lastIndex()).isGreaterThanOrEqualTo(checkpointAt);
        }
    }

    @Test
    void aHostCacheWithNoRoomIsRefused() {
        assertThatThrownBy(() -> new HostPageCache(0)).isInstanceOf(IllegalArgumentException.class).hasMessage("capacityBytes must be >= 1, was 0");
    }
}

package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.record.RecordCodec;

/**
 * The record bound a journal sizes its blocks by holds the largest record its layout encodes, and
 * the block is the smallest power of two that holds four of them, never under 256 KiB.
 */
class JournalOptionsTest {
    private static long encoded(JournalLayout layout, HiCachePool pool) {
        int[] tokens = new int[layout.pageSize()];
        PageBackup page = new PageBackup(new byte[32], new byte[32], tokens, 0, 0, layout.layout().shape().layers(), pool,
                new byte[(int) layout.payloadBytes(pool)]);
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeBackup(out, page, 0L);
        return out.readRemaining();
    }

    @Test
    void theBoundHoldsEveryRecordAndTheBlockFourOfThem() {
        JournalLayout toy = TestPages.LAYOUT;
        JournalLayout v32 = new JournalLayout(64, new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3));
        for (JournalLayout layout : new JournalLayout[] {toy, v32}) {
            JournalOptions options = JournalOptions.of(Path.of("unused"), layout);
            long largest = options.largestRecordBytes();
            for (HiCachePool pool : HiCachePool.values()) {
                assertThat(encoded(layout, pool)).as("%s %s", layout, pool).isLessThanOrEqualTo(largest);
            }
            assertThat(largest).isLessThan(Math.max(encoded(layout, HiCachePool.KV), encoded(layout, HiCachePool.INDEXER)) + 512);
            long block = options.blockSize();
            assertThat(Long.bitCount(block)).as("a power of two").isEqualTo(1);
            assertThat(block).isGreaterThanOrEqualTo(Math.max(256 << 10, 4 * largest));
            assertThat(block / 2).isLessThan(Math.max(256 << 10, 4 * largest));
        }
        assertThat(JournalOptions.of(Path.of("unused"), toy).blockSize()).as("a small layout's floor").isEqualTo(256 << 10);
    }
}

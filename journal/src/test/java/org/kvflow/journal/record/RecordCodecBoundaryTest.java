package org.kvflow.journal.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * Records at the edges of what the codec takes: the smallest page and payload, more tokens than
 * its scratch holds, a payload of several checksum chunks read into heap and direct buffers, a
 * parent or none, and documents cut or patched exactly at a field's end.
 */
class RecordCodecBoundaryTest {
    private static final int HASH = PageHashChain.HASH_BYTES;

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static PageBackup backup(int tokens, int payload, byte[] parent) {
        int[] ids = new int[tokens];
        Arrays.setAll(ids, i -> 3 * i + 1);
        return new PageBackup(bytes(HASH, 1), parent, ids, 5, 9, 2, HiCachePool.INDEXER, bytes(payload, 2));
    }

    private static byte[] written(PageBackup page) {
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeBackup(out, page, 1234L);
        return out.toByteArray();
    }

    private static PageBackup read(byte[] record) {
        return ((JournalRecord.Backup) new RecordCodec().read(Bytes.wrapForRead(record), 7).record()).page();
    }

    private static void sameBackup(PageBackup back, PageBackup page) {
        assertThat(back.pageHash()).isEqualTo(page.pageHash());
        assertThat(back.parentHash()).isEqualTo(page.parentHash());
        assertThat(back.tokenIds()).isEqualTo(page.tokenIds());
        assertThat(back.payload()).isEqualTo(page.payload());
        assertThat(back.ownerRank()).isEqualTo(5);
        assertThat(back.position()).isEqualTo(9);
    }

    @Test
    void aPageOfOneTokenAndNoPayloadRoundTrips() {
        PageBackup page = backup(1, 0, null);
        sameBackup(read(written(page)), page);
    }

    @Test
    void aPageOfMoreTokensThanTheScratchHoldsRoundTripsWithItsChecksum() {
        for (int tokens : new int[] {64, 65, 130}) {
            PageBackup page = backup(tokens, 40, bytes(HASH, 3));
            sameBackup(read(written(page)), page);
        }
    }

    @Test
    void aPayloadOfSeveralChecksumChunksRoundTripsIntoAnArrayAndIntoHeapAndDirectBuffers() {
        PageBackup page = backup(4, 600 * 1024 + 3, bytes(HASH, 4));
        byte[] record = written(page);
        sameBackup(read(record), page);
        for (ByteBuffer[] target : List.of(new ByteBuffer[] {ByteBuffer.allocate(300 * 1024), ByteBuffer.allocate(300 * 1024 + 3)},
                new ByteBuffer[] {ByteBuffer.allocateDirect(100), ByteBuffer.allocateDirect(600 * 1024 - 97)})) {
            RecordCodec.Placed placed = new RecordCodec().readPlaced(Bytes.wrapForRead(record), 7, h -> List.of(target));
            assertThat(placed.placed()).isTrue();
            assertThat(placed.header().parentHash()).isEqualTo(page.parentHash());
            ByteBuffer joined = ByteBuffer.allocate(page.payload().length);
            for (ByteBuffer b : target) {
                joined.put(b.flip());
            }
            assertThat(joined.array()).isEqualTo(page.payload());
        }
    }

    @Test
    void aPlacedReadTellsARootPageFromOneWithAParentAndSkipsWhatTheTargetDoesNotWant() {
        RecordCodec.Placed root = new RecordCodec().readPlaced(Bytes.wrapForRead(written(backup(2, 8, null))), 7, h -> null);
        assertThat(root.placed()).isFalse();
        assertThat(root.header().parentHash()).isNull();
        byte[] parent = bytes(HASH, 5);
        RecordCodec.Placed child = new RecordCodec().readPlaced(Bytes.wrapForRead(written(backup(2, 8, parent))), 7, h -> null);
        assertThat(child.header().parentHash()).isEqualTo(parent);
        assertThat(child.header().payloadLength()).isEqualTo(8);
    }

    @Test
    void fieldsThatFitTheBytesExactlyButLeaveNoneForWhatFollowsAreUnreadable() {
        byte[] evict;
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeEvict(out, bytes(HASH, 6), 5L);
        evict = Arrays.copyOf(out.toByteArray(), 3 + HASH); // the hash whole, nothing after it
        assertThatThrownBy(() -> new RecordCodec().read(Bytes.wrapForRead(evict), 0)).isExactlyInstanceOf(RecordDecodeException.class)
                .hasMessage("unreadable record (DecoratedBufferUnderflowException)");
        // a page size whose token ids take every byte left: the fields after them are missing
        byte[] record = written(backup(2, 7, null));
        int pageSizeAt = 3 + 2 * HASH + 16;
        int left = record.length - pageSizeAt - 4;
        assertThat(left % 4).as("the payload length makes the rest a whole number of ids").isZero();
        ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN).putInt(pageSizeAt, left / 4);
        assertThatThrownBy(() -> new RecordCodec().read(Bytes.wrapForRead(record), 0)).isExactlyInstanceOf(RecordDecodeException.class)
                .hasMessage("unreadable record (DecoratedBufferUnderflowException)");
    }
}

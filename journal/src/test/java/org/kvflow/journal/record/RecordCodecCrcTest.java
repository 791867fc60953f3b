package org.kvflow.journal.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * Each record's CRC32C is computed here from the documented field order alone (little-endian,
 * version first, kvflow's additions last), so a field left out of the codec's CRC, or a changed
 * order, fails; and a record whose stored CRC does not match is refused naming both values.
 */
class RecordCodecCrcTest {
    private static final int V = RecordCodec.FORMAT_VERSION;

    private static byte[] filled(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 31 * i);
        }
        return b;
    }

    private static int crc(ByteBuffer fields) {
        CRC32C c = new CRC32C();
        c.update(fields.flip());
        return (int) c.getValue();
    }

    private static ByteBuffer buffer() {
        return ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void aBackupsCrcCoversEveryFieldInOrder() {
        byte[] hash = filled(PageHashChain.HASH_BYTES, 1);
        byte[] parent = filled(PageHashChain.HASH_BYTES, 2);
        int[] tokens = {5, 70_000, 0, 9};
        byte[] payload = filled(40, 3);
        PageBackup page = new PageBackup(hash, parent, tokens, 3, 17, 2, HiCachePool.INDEXER, payload);
        ByteBuffer f = buffer().putShort((short) V).put(hash).put(parent);
        for (int t : tokens) {
            f.putInt(t);
        }
        f.putInt(2).put((byte) HiCachePool.INDEXER.code()).putInt(payload.length).put(payload).putInt(3).putInt(17).putLong(1_700_000_000_123L);
        int expected = crc(f);

        Bytes<?> out = Bytes.allocateElasticOnHeap();
        assertThat(new RecordCodec().writeBackup(out, page, 1_700_000_000_123L)).isEqualTo(expected);
        RecordCodec.Decoded decoded = new RecordCodec().read(out, 7);
        assertThat(decoded.crc()).isEqualTo(expected);
        assertThat(out.readRemaining()).as("the stored CRC is the record's last field").isZero();
    }

    @Test
    void aBackupsCrcComputedOnAnotherThreadWhileItIsWrittenGivesTheSameRecord() {
        PageBackup page = new PageBackup(filled(PageHashChain.HASH_BYTES, 1), filled(PageHashChain.HASH_BYTES, 2), new int[] {5, 70_000, 0, 9},
                3, 17, 2, HiCachePool.KV, filled(1 << 20, 3));
        Bytes<?> inline = Bytes.allocateElasticOnHeap();
        int expected = new RecordCodec().writeBackup(inline, page, 11L);
        java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        RecordCodec sideways = new RecordCodec(task -> Thread.ofPlatform().name("checksum").start(() -> {
            threads.add(Thread.currentThread().getName());
            task.run();
        }));
        for (int round = 0; round < 3; round++) { // the codec's scratch buffers are reused record after record
            Bytes<?> out = Bytes.allocateElasticOnHeap();
            assertThat(sideways.writeBackup(out, page, 11L)).isEqualTo(expected);
            assertThat(out.toByteArray()).isEqualTo(inline.toByteArray());
        }
        assertThat(threads).containsExactly("checksum");
    }

    @Test
    void aBackupWhoseWriteFailsWaitsForItsChecksumAndTheCodecStaysUsable() {
        PageBackup page = new PageBackup(filled(PageHashChain.HASH_BYTES, 1), null, new int[] {1}, 0, 0, 1, HiCachePool.KV, filled(4096, 5));
        int expected = new RecordCodec().writeBackup(Bytes.allocateElasticOnHeap(), page, 3L);
        java.util.concurrent.atomic.AtomicBoolean checksumBegun = new java.util.concurrent.atomic.AtomicBoolean();
        RecordCodec codec = new RecordCodec(task -> Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(100); // the write fails long before the checksum is done
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // set before the checksum runs: a write that waited for the checksum's result sees it (a flag set after
            // task.run() would race the waiter, which the task's own completion wakes)
            checksumBegun.set(true);
            task.run();
        }));
        assertThatThrownBy(() -> codec.writeBackup(Bytes.wrapForWrite(new byte[64]), page, 3L)).isInstanceOf(java.nio.BufferOverflowException.class);
        assertThat(checksumBegun).as("the failed write returned only after its checksum, which uses the codec's buffers, was done").isTrue();
        assertThat(codec.writeBackup(Bytes.allocateElasticOnHeap(), page, 3L)).isEqualTo(expected);
    }

    @Test
    void aBackupWithoutParentHashesZeros() {
        byte[] hash = filled(PageHashChain.HASH_BYTES, 4);
        PageBackup page = new PageBackup(hash, null, new int[] {1}, 0, 0, 1, HiCachePool.KV, new byte[] {9});
        ByteBuffer f = buffer().putShort((short) V).put(hash).put(new byte[PageHashChain.HASH_BYTES]).putInt(1)
                .putInt(1).put((byte) HiCachePool.KV.code()).putInt(1).put((byte) 9).putInt(0).putInt(0).putLong(5);
        assertThat(new RecordCodec().writeBackup(Bytes.allocateElasticOnHeap(), page, 5)).isEqualTo(crc(f));
    }

    @Test
    void anEvictionsAndACheckpointsCrcs() {
        byte[] hash = filled(PageHashChain.HASH_BYTES, 6);
        Bytes<?> evict = Bytes.allocateElasticOnHeap();
        int evictCrc = new RecordCodec().writeEvict(evict, hash, 1234L);
        assertThat(evictCrc).isEqualTo(crc(buffer().putShort((short) V).put(hash).putLong(1234L)));
        assertThat(new RecordCodec().read(evict, 1).crc()).isEqualTo(evictCrc);

        Bytes<?> checkpoint = Bytes.allocateElasticOnHeap();
        int checkpointCrc = new RecordCodec().writeCheckpoint(checkpoint, 42L, 0xCAFE, 99L);
        assertThat(checkpointCrc).isEqualTo(crc(buffer().putShort((short) V).putLong(42L).putInt(0xCAFE).putLong(99L)));
        RecordCodec.Decoded decoded = new RecordCodec().read(checkpoint, 2);
        assertThat(decoded.crc()).isEqualTo(checkpointCrc);
        assertThat(decoded.record()).isInstanceOfSatisfying(JournalRecord.Checkpoint.class, c -> {
            assertThat(c.firstNeededIndex()).isEqualTo(42L);
            assertThat(c.expectedCrc()).isEqualTo(0xCAFE);
        });
    }

    @Test
    void aCodecReusedForEveryKindOfRecordStartsEachChecksumAfresh() {
        byte[] hash = filled(PageHashChain.HASH_BYTES, 6);
        PageBackup page = new PageBackup(hash, null, new int[] {1}, 0, 0, 1, HiCachePool.KV, filled(64, 7));
        RecordCodec reused = new RecordCodec(); // as the journal's appender reuses its one codec
        int[] kinds = new int[6];
        for (int round = 0; round < 2; round++) {
            kinds[3 * round] = reused.writeBackup(Bytes.allocateElasticOnHeap(), page, 5L);
            kinds[3 * round + 1] = reused.writeEvict(Bytes.allocateElasticOnHeap(), hash, 1234L);
            kinds[3 * round + 2] = reused.writeCheckpoint(Bytes.allocateElasticOnHeap(), 42L, 0xCAFE, 99L);
        }
        int backup = new RecordCodec().writeBackup(Bytes.allocateElasticOnHeap(), page, 5L);
        int evict = new RecordCodec().writeEvict(Bytes.allocateElasticOnHeap(), hash, 1234L);
        int checkpoint = new RecordCodec().writeCheckpoint(Bytes.allocateElasticOnHeap(), 42L, 0xCAFE, 99L);
        assertThat(kinds).containsExactly(backup, evict, checkpoint, backup, evict, checkpoint);
    }

    @Test
    void aFlippedByteInAnyFieldIsRefused() {
        PageBackup page = new PageBackup(filled(PageHashChain.HASH_BYTES, 8), filled(PageHashChain.HASH_BYTES, 9), new int[] {1, 2},
                1, 2, 1, HiCachePool.KV, filled(8, 10));
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeBackup(out, page, 77L);
        byte[] record = out.toByteArray();
        int crcAt = record.length - 4;
        for (int at = 3; at < crcAt; at++) {
            byte[] damaged = record.clone();
            damaged[at] ^= 0x01;
            int offset = at;
            assertThatThrownBy(() -> new RecordCodec().read(Bytes.wrapForRead(damaged), 0)).as("byte %d flipped", offset)
                    .isInstanceOf(RecordDecodeException.class);
        }
    }
}

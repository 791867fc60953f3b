package org.kvflow.journal.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * A document the codec cannot take as a record is refused with a {@link RecordDecodeException}
 * naming what is wrong, and nothing else is thrown: each case by its exact message, on records
 * written by the codec and then cut or patched at the offsets of the documented layout.
 */
class RecordDecodeErrorTest {
    private static final int HASH = PageHashChain.HASH_BYTES;
    /** Where a BACKUP's fields start: type(1) ‖ version(2) ‖ hash ‖ parent ‖ ownerRank ‖ position ‖ timestamp ‖ page size. */
    private static final int OWNER_AT = 3 + 2 * HASH;
    private static final int PAGE_SIZE_AT = OWNER_AT + 16;
    private static final int TOKENS_AT = PAGE_SIZE_AT + 4;
    private static final int[] TOKENS = {4, 8, 15, 16};
    /** After the token ids: layers(4) ‖ pool(1) ‖ payload length(4). */
    private static final int POOL_AT = TOKENS_AT + 4 * TOKENS.length + 4;
    private static final int LENGTH_AT = POOL_AT + 1;
    private static final int PAYLOAD_AT = LENGTH_AT + 4;
    private static final int PAYLOAD = 24;

    private static byte[] backup() {
        byte[] hash = new byte[HASH];
        Arrays.fill(hash, (byte) 7);
        PageBackup page = new PageBackup(hash, null, TOKENS, 2, 3, 1, HiCachePool.KV, new byte[PAYLOAD]);
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeBackup(out, page, 99L);
        return out.toByteArray();
    }

    private static RecordCodec.Decoded read(byte[] record) {
        return new RecordCodec().read(Bytes.wrapForRead(record), 0x2A);
    }

    private static ByteBuffer le(byte[] record) {
        return ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The CRC32C a BACKUP's last four bytes must hold, over its fields in the documented order. */
    private static int backupCrc(byte[] r) {
        CRC32C c = new CRC32C();
        c.update(r, 1, 2 + 2 * HASH); // version, hash, parent
        c.update(r, TOKENS_AT, PAYLOAD_AT + PAYLOAD - TOKENS_AT); // token ids, layers, pool, length, payload
        c.update(r, OWNER_AT, 16); // kvflow's additions: ownerRank, position, timestamp
        return (int) c.getValue();
    }

    @Test
    void theLayoutThisTestPatchesIsTheCodecs() {
        byte[] record = backup();
        assertThat(record).hasSize(PAYLOAD_AT + PAYLOAD + 4);
        assertThat(le(record).getInt(record.length - 4)).isEqualTo(backupCrc(record));
        assertThat(read(record).record()).isInstanceOf(JournalRecord.Backup.class);
    }

    @Test
    void aRecordOfAnUnknownTypeIsRefusedNamingTheType() {
        byte[] record = backup();
        record[0] = 9;
        assertThatThrownBy(() -> read(record)).isExactlyInstanceOf(RecordDecodeException.class).hasMessage("unknown record type 9");
    }

    @Test
    void aBackupOfAPoolThisBuildDoesNotKnowIsRefusedNamingThePoolEvenWithItsChecksumRight() {
        byte[] record = backup();
        record[POOL_AT] = 9;
        le(record).putInt(record.length - 4, backupCrc(record));
        assertThatThrownBy(() -> read(record)).isExactlyInstanceOf(RecordDecodeException.class).hasMessage("unknown pool 9");
    }

    @Test
    void aPageSizeOrPayloadLengthPastTheRecordIsRefusedBeforeAnythingIsAllocatedForIt() {
        byte[] noTokens = backup();
        le(noTokens).putInt(PAGE_SIZE_AT, 0);
        assertThatThrownBy(() -> read(noTokens)).isExactlyInstanceOf(RecordDecodeException.class).hasMessage("page size 0 does not fit the record");
        byte[] tooMany = backup();
        le(tooMany).putInt(PAGE_SIZE_AT, 1 << 28);
        assertThatThrownBy(() -> read(tooMany)).isExactlyInstanceOf(RecordDecodeException.class)
                .hasMessage("page size 268435456 does not fit the record");
        byte[] tooLong = backup();
        le(tooLong).putInt(LENGTH_AT, PAYLOAD + 1);
        assertThatThrownBy(() -> read(tooLong)).isExactlyInstanceOf(RecordDecodeException.class)
                .hasMessage("payload length 25 does not fit the record");
        byte[] negative = backup();
        le(negative).putInt(LENGTH_AT, -1);
        assertThatThrownBy(() -> read(negative)).isExactlyInstanceOf(RecordDecodeException.class)
                .hasMessage("payload length -1 does not fit the record");
    }

    @Test
    void aRecordCutShortIsRefusedSayingHowMuchIsMissing() {
        byte[] hash = new byte[HASH];
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeEvict(out, hash, 5L);
        byte[] cut = Arrays.copyOf(out.toByteArray(), 3 + 10); // type, version and 10 of the hash's 32 bytes
        assertThatThrownBy(() -> read(cut)).isExactlyInstanceOf(RecordDecodeException.class).hasMessage("record ends 22 bytes early");
    }

    @Test
    void aRecordCutInsideAFixedFieldIsRefusedAsUnreadable() {
        Bytes<?> out = Bytes.allocateElasticOnHeap();
        new RecordCodec().writeCheckpoint(out, 12L, 0xCAFE, 5L);
        byte[] cut = Arrays.copyOf(out.toByteArray(), 3 + 4); // half of firstNeededIndex
        assertThatThrownBy(() -> read(cut)).isExactlyInstanceOf(RecordDecodeException.class)
                .hasMessage("unreadable record (DecoratedBufferUnderflowException)"); // Chronicle's read past the end, by name
    }
}

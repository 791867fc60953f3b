package org.kvflow.journal.record;

import java.nio.ByteBuffer;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * The journal's byte encoding, version {@value #FORMAT_VERSION}. Each Chronicle document holds
 * {@code type(u8) ‖ version(u16)} then the record's fields, little-endian, ending with a CRC32C.
 * The CRC covers exactly contract §11.4's fields in the contract's order, followed by kvflow's additions:
 * {@code BACKUP} adds {@code ownerRank(LE32) ‖ position(LE32) ‖ timestamp(LE64)}, {@code EVICT_HOST}
 * adds {@code timestamp}, {@code CHECKPOINT} adds {@code expectedCrc(LE32) ‖ timestamp}. A codec
 * reuses its scratch buffers: one per appender or reader thread.
 */
public final class RecordCodec {
    /** The only format version this build writes and reads. */
    public static final int FORMAT_VERSION = 1;
    static final int BACKUP = 1;
    static final int EVICT_HOST = 2;
    static final int CHECKPOINT = 3;
    private static final byte[] NO_PARENT = new byte[PageHashChain.HASH_BYTES];
    /** Payload bytes copied out and checksummed at a time (fits a core's L2 cache). */
    private static final int CRC_CHUNK = 256 * 1024;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer scratch = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer tokens = ByteBuffer.allocate(4 * 64).order(ByteOrder.LITTLE_ENDIAN);
    /** Where a {@code BACKUP}'s checksum is computed while its bytes are written. */
    private final Executor checksums;

    /** A codec with its own scratch buffers, for one thread; a backup's checksum is computed before it is written. */
    public RecordCodec() {
        this(Runnable::run);
    }

    /**
     * A codec whose {@code BACKUP} checksum is computed on {@code checksums} while the appending
     * thread writes the record's bytes, both reading the payload at once; the checksum is written
     * last, once computed. Still one codec per appending thread.
     *
     * @param checksums where the checksums run (a thread of its own pays where a core is free)
     */
    public RecordCodec(Executor checksums) {
        this.checksums = Objects.requireNonNull(checksums, "checksums");
    }

    /**
     * Writes a {@code BACKUP}.
     *
     * @param out             the Chronicle document to write into
     * @param page            the page of one pool
     * @param timestampMillis when it is appended
     * @return its CRC32C
     */
    public int writeBackup(Bytes<?> out, PageBackup page, long timestampMillis) {
        byte[] parent = page.parentHash() == null ? NO_PARENT : page.parentHash();
        int[] tokenIds = page.tokenIds();
        byte[] payload = page.payloadView();
        CompletableFuture<Integer> pending = CompletableFuture.supplyAsync(() -> backupCrc(FORMAT_VERSION, page.pageHash(), parent, tokenIds,
                page.layerCount(), page.pool().code(), payload, payload.length, page.ownerRank(), page.position(), timestampMillis), checksums);
        try {
            writeBackupFields(out, page, parent, tokenIds, payload, timestampMillis);
        } catch (RuntimeException e) {
            settle(pending); // the scratch buffers are the checksum's until it is done
            throw e;
        }
        int checksum = pending.join();
        out.writeInt(checksum);
        return checksum;
    }

    /** Every field of a {@code BACKUP} but its trailing checksum. */
    private static void writeBackupFields(Bytes<?> out, PageBackup page, byte[] parent, int[] tokenIds, byte[] payload, long timestampMillis) {
        out.writeByte((byte) BACKUP);
        out.writeShort((short) FORMAT_VERSION);
        out.write(page.pageHash());
        out.write(parent);
        out.writeInt(page.ownerRank());
        out.writeInt(page.position());
        out.writeLong(timestampMillis);
        out.writeInt(tokenIds.length);
        for (int t : tokenIds) {
            out.writeInt(t);
        }
        out.writeInt(page.layerCount());
        out.writeByte((byte) page.pool().code());
        out.writeInt(payload.length);
        out.write(payload);
    }

    /** Waits for a checksum that is no longer wanted, whatever its outcome. */
    private static void settle(CompletableFuture<Integer> pending) {
        try {
            pending.join();
        } catch (CompletionException e) {
            // the write's own failure is the one reported
        }
    }

    /**
     * Writes an {@code EVICT_HOST}.
     *
     * @param out             the Chronicle document to write into
     * @param pageHash        the evicted page's chained hash
     * @param timestampMillis when it is appended
     * @return its CRC32C
     */
    public int writeEvict(Bytes<?> out, byte[] pageHash, long timestampMillis) {
        crc.reset();
        putShort(FORMAT_VERSION);
        crc.update(pageHash);
        putLong(timestampMillis);
        int checksum = (int) crc.getValue();
        out.writeByte((byte) EVICT_HOST);
        out.writeShort((short) FORMAT_VERSION);
        out.write(pageHash);
        out.writeLong(timestampMillis);
        out.writeInt(checksum);
        return checksum;
    }

    /**
     * Writes a {@code CHECKPOINT}.
     *
     * @param out              the Chronicle document to write into
     * @param firstNeededIndex the first index replay needs
     * @param expectedCrc      the CRC of the record at that index now (0 if none)
     * @param timestampMillis  when it is appended
     * @return its CRC32C
     */
    public int writeCheckpoint(Bytes<?> out, long firstNeededIndex, int expectedCrc, long timestampMillis) {
        int checksum = checkpointCrc(FORMAT_VERSION, firstNeededIndex, expectedCrc, timestampMillis);
        out.writeByte((byte) CHECKPOINT);
        out.writeShort((short) FORMAT_VERSION);
        out.writeLong(firstNeededIndex);
        out.writeInt(expectedCrc);
        out.writeLong(timestampMillis);
        out.writeInt(checksum);
        return checksum;
    }

    /**
     * Decodes one record.
     *
     * @param in    the Chronicle document
     * @param index its queue index, kept with the record
     * @return the record and its stored CRC
     * @throws RecordDecodeException naming what is wrong (truncated, unknown type or version, bad CRC)
     */
    public Decoded read(Bytes<?> in, long index) {
        try {
            return switch (readType(in)) {
                case BACKUP -> readBackup(in, index);
                case EVICT_HOST -> readEvict(in, index, FORMAT_VERSION);
                case CHECKPOINT -> readCheckpoint(in, index, FORMAT_VERSION);
                default -> throw new IllegalStateException("readType returns known types only");
            };
        } catch (RecordDecodeException e) {
            throw e;
        } catch (RuntimeException e) { // a truncated or garbled document: Chronicle reports reads past the end
            throw unreadable(e);
        }
    }

    /**
     * Decodes one record, a {@code BACKUP}'s payload straight into the buffers {@code target} names
     * (from Chronicle's mapped bytes, checksummed as it lands); other records are passed over unread.
     *
     * @param in     the Chronicle document
     * @param index  its queue index
     * @param target where the payload goes, asked once the fields before it are read
     * @return the backup's header and whether its payload was placed (false: the target skipped it,
     *         unread); null when the record is not a {@code BACKUP}
     * @throws RecordDecodeException naming what is wrong (truncated, unknown type, version or pool, bad CRC)
     * @throws IllegalArgumentException if the target's buffers do not hold exactly the payload
     */
    public @Nullable Placed readPlaced(Bytes<?> in, long index, PayloadTarget target) {
        try {
            if (readType(in) != BACKUP) {
                return null;
            }
            Head head = readHead(in, FORMAT_VERSION);
            HiCachePool pool = pool(head.poolCode());
            BackupHeader header = new BackupHeader(index, head.timestamp(), head.hash(), head.root() ? null : head.parent(), head.ownerRank(),
                    head.position(), head.tokenIds().length, head.layers(), pool, head.length());
            List<ByteBuffer> buffers = target.buffers(header);
            if (buffers == null) {
                in.readSkip(head.length() + 4L);
                return new Placed(header, false);
            }
            long room = buffers.stream().mapToLong(ByteBuffer::remaining).sum();
            if (room != head.length()) {
                throw new IllegalArgumentException("buffers for " + header.key() + " at index " + Long.toHexString(index) + " hold " + room
                        + " bytes, its payload " + head.length());
            }
            for (ByteBuffer buffer : buffers) {
                while (buffer.hasRemaining()) {
                    int n = Math.min(CRC_CHUNK, buffer.remaining());
                    readInto(in, buffer, n);
                    crc.update(buffer.slice(buffer.position(), n));
                    buffer.position(buffer.position() + n);
                }
            }
            checkTail(in, head);
            return new Placed(header, true);
        } catch (RecordDecodeException | IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw unreadable(e);
        }
    }

    /** {@code n} payload bytes to {@code buffer} at its position (not moved): into direct memory as one native copy. */
    private static void readInto(Bytes<?> in, ByteBuffer buffer, int n) {
        if (n > in.readRemaining()) {
            throw new RecordDecodeException("record ends " + (n - in.readRemaining()) + " bytes early");
        }
        if (buffer.hasArray()) {
            in.read(buffer.array(), buffer.arrayOffset() + buffer.position(), n);
        } else if (in.isDirectMemory()) {
            in.unsafeRead(MemorySegment.ofBuffer(buffer).address(), n); // the segment starts at the buffer's position
        } else {
            byte[] chunk = new byte[n];
            in.read(chunk, 0, n);
            buffer.put(buffer.position(), chunk, 0, n);
        }
    }

    /** Reads the type and version; returns a known type. */
    private static int readType(Bytes<?> in) {
        int type = in.readUnsignedByte();
        int version = in.readUnsignedShort();
        if (version != FORMAT_VERSION) {
            throw new RecordDecodeException("format version " + version + " is not supported (this build reads " + FORMAT_VERSION + ")");
        }
        if (type != BACKUP && type != EVICT_HOST && type != CHECKPOINT) {
            throw new RecordDecodeException("unknown record type " + type);
        }
        return type;
    }

    private static RecordDecodeException unreadable(RuntimeException e) {
        return new RecordDecodeException("unreadable record (" + e.getClass().getSimpleName() + ")");
    }

    /** A BACKUP's fields before the payload; the checksum has run over them. */
    private record Head(byte[] hash, byte[] parent, int ownerRank, int position, long timestamp, int[] tokenIds, int layers, int poolCode,
                        int length) {
        boolean root() {
            return java.util.Arrays.equals(parent, NO_PARENT);
        }
    }

    private Head readHead(Bytes<?> in, int version) {
        byte[] hash = readBytes(in, PageHashChain.HASH_BYTES);
        byte[] parent = readBytes(in, PageHashChain.HASH_BYTES);
        int ownerRank = in.readInt();
        int position = in.readInt();
        long timestamp = in.readLong();
        int ps = in.readInt();
        if (ps < 1 || 4L * ps > in.readRemaining()) {
            throw new RecordDecodeException("page size " + ps + " does not fit the record");
        }
        int[] tokenIds = new int[ps];
        for (int i = 0; i < ps; i++) {
            tokenIds[i] = in.readInt();
        }
        int layers = in.readInt();
        int poolCode = in.readUnsignedByte();
        int length = in.readInt();
        if (length < 0 || length > in.readRemaining() - 4) {
            throw new RecordDecodeException("payload length " + length + " does not fit the record");
        }
        crcHead(version, hash, parent, tokenIds, layers, poolCode, length);
        return new Head(hash, parent, ownerRank, position, timestamp, tokenIds, layers, poolCode, length);
    }

    /** Reads the stored CRC after the payload and checks it against the one computed; returns it. */
    private int checkTail(Bytes<?> in, Head head) {
        int stored = in.readInt();
        int computed = crcTail(head.ownerRank(), head.position(), head.timestamp());
        if (stored != computed) {
            throw new RecordDecodeException(crcMessage(stored, computed));
        }
        return stored;
    }

    private static HiCachePool pool(int code) {
        HiCachePool pool = HiCachePool.ofCode(code);
        if (pool == null) {
            throw new RecordDecodeException("unknown pool " + code);
        }
        return pool;
    }

    private Decoded readBackup(Bytes<?> in, long index) {
        Head head = readHead(in, FORMAT_VERSION);
        // the checksum runs over each chunk of the payload right after it is copied out of the mapped file, while it is in cache
        byte[] payload = new byte[head.length()];
        for (int at = 0; at < payload.length; at += CRC_CHUNK) {
            int n = Math.min(CRC_CHUNK, payload.length - at);
            in.read(payload, at, n);
            crc.update(payload, at, n);
        }
        int stored = checkTail(in, head);
        HiCachePool pool = pool(head.poolCode());
        PageBackup page = new PageBackup(head.hash(), head.root() ? null : head.parent(), head.tokenIds(), head.ownerRank(), head.position(),
                head.layers(), pool, payload);
        return new Decoded(new JournalRecord.Backup(index, head.timestamp(), page), stored);
    }

    private Decoded readEvict(Bytes<?> in, long index, int version) {
        byte[] hash = readBytes(in, PageHashChain.HASH_BYTES);
        long timestamp = in.readLong();
        int stored = in.readInt();
        crc.reset();
        putShort(version);
        crc.update(hash);
        putLong(timestamp);
        int computed = (int) crc.getValue();
        if (stored != computed) {
            throw new RecordDecodeException(crcMessage(stored, computed));
        }
        return new Decoded(new JournalRecord.EvictHost(index, timestamp, hash), stored);
    }

    private Decoded readCheckpoint(Bytes<?> in, long index, int version) {
        long firstNeeded = in.readLong();
        int expected = in.readInt();
        long timestamp = in.readLong();
        int stored = in.readInt();
        int computed = checkpointCrc(version, firstNeeded, expected, timestamp);
        if (stored != computed) {
            throw new RecordDecodeException(crcMessage(stored, computed));
        }
        return new Decoded(new JournalRecord.Checkpoint(index, timestamp, firstNeeded, expected), stored);
    }

    private int backupCrc(int version, byte[] hash, byte[] parent, int[] tokenIds, int layers, int pool, byte[] payload, int length,
                          int ownerRank, int position, long timestamp) {
        crcHead(version, hash, parent, tokenIds, layers, pool, length);
        crc.update(payload, 0, length);
        return crcTail(ownerRank, position, timestamp);
    }

    /** Starts a BACKUP's checksum: every field before the payload. */
    private void crcHead(int version, byte[] hash, byte[] parent, int[] tokenIds, int layers, int pool, int length) {
        crc.reset();
        putShort(version);
        crc.update(hash);
        crc.update(parent);
        if (tokens.capacity() < 4 * tokenIds.length) {
            tokens = ByteBuffer.allocate(4 * tokenIds.length).order(ByteOrder.LITTLE_ENDIAN);
        }
        tokens.clear();
        for (int t : tokenIds) {
            tokens.putInt(t);
        }
        tokens.flip();
        crc.update(tokens);
        scratch.clear();
        scratch.putInt(layers).put((byte) pool).putInt(length).flip();
        crc.update(scratch);
    }

    /** Ends a BACKUP's checksum with the fields after the payload; returns it. */
    private int crcTail(int ownerRank, int position, long timestamp) {
        scratch.clear();
        scratch.putInt(ownerRank).putInt(position).putLong(timestamp).flip();
        crc.update(scratch);
        return (int) crc.getValue();
    }

    private int checkpointCrc(int version, long firstNeeded, int expected, long timestamp) {
        crc.reset();
        putShort(version);
        putLong(firstNeeded);
        scratch.clear();
        scratch.putInt(expected).flip();
        crc.update(scratch);
        putLong(timestamp);
        return (int) crc.getValue();
    }

    private void putShort(int value) {
        scratch.clear();
        scratch.putShort((short) value).flip();
        crc.update(scratch);
    }

    private void putLong(long value) {
        scratch.clear();
        scratch.putLong(value).flip();
        crc.update(scratch);
    }

    private static byte[] readBytes(Bytes<?> in, int n) {
        if (n > in.readRemaining()) {
            throw new RecordDecodeException("record ends " + (n - in.readRemaining()) + " bytes early");
        }
        byte[] b = new byte[n];
        in.read(b);
        return b;
    }

    private static String crcMessage(int stored, int computed) {
        return "crc32c mismatch (stored " + Integer.toHexString(stored) + ", computed " + Integer.toHexString(computed) + ")";
    }

    /**
     * A decoded record and the CRC it carried.
     *
     * @param record the record
     * @param crc    its stored CRC32C
     */
    public record Decoded(JournalRecord record, int crc) {}

    /**
     * A {@code BACKUP} decoded into a {@link PayloadTarget}'s buffers.
     *
     * @param header its fields before the payload
     * @param placed true when the payload landed in the buffers and its CRC matched; false when the
     *               target skipped it (unread, unchecked)
     */
    public record Placed(BackupHeader header, boolean placed) {}
}

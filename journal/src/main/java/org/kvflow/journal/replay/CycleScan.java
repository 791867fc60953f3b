package org.kvflow.journal.replay;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * One cycle file walked with plain reads, before Chronicle maps it: a mapped read past the end of
 * a truncated file is a SIGBUS that kills the reader, so the walk finds where the intact documents
 * end first. A Chronicle document starts with a 4-byte little-endian header (bit 31: not complete,
 * bit 30: metadata, the rest: length), is padded to 4 bytes, and the data ends at a zero header.
 *
 * @param records   data documents (journal records) before the end or the damage
 * @param intactEnd byte offset where the intact documents end
 * @param declaredEnd where the damaged document claims to end (its header position plus its
 *                  length), or {@code intactEnd} when there is no damage
 * @param damage    what is wrong, or null for an intact file
 */
record CycleScan(Path file, long size, long records, long intactEnd, long declaredEnd, @Nullable String damage) {
    static final int NOT_COMPLETE = 0x80000000;
    static final int META_DATA = 0x40000000;
    static final int LENGTH = 0x3FFFFFFF;

    /** Bytes past the intact documents that replay cannot read. */
    long bytesLost() {
        return damage == null ? 0 : size - intactEnd;
    }

    static CycleScan of(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            LiveWriterGrace.await(() -> ch.size() > 0);
            long size = ch.size();
            if (size == 0) {
                return new CycleScan(file, 0, 0, 0, 0, "the cycle file is empty: a cycle that should hold records holds none");
            }
            ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            long pos = 0;
            long records = 0;
            while (true) {
                if (pos + 4 > size && pos + 4 > (size = ch.size())) {
                    return new CycleScan(file, size, records, pos, pos + 4, "the file ends at byte " + size + " without an end mark");
                }
                int header = headerAt(ch, word, pos);
                if (header == 0 || (header & NOT_COMPLETE) != 0) { // the end, or a write a crash cut short (readers skip it)
                    // ...unless documents follow it: then a header was zeroed or flipped, and what follows is lost, not absent
                    long after = header == 0 ? pos + 4 : (pos + 4 + (header & LENGTH) + 3) & ~3L;
                    long written = firstNonZero(ch, after, size);
                    if (written < 0) {
                        return new CycleScan(file, size, records, pos, pos, null);
                    }
                    long at = pos;
                    int seen = header;
                    ByteBuffer probe = ByteBuffer.allocate(4);
                    LiveWriterGrace.await(() -> headerAt(ch, probe, at) != seen); // a live writer finishing this document
                    if (headerAt(ch, word, pos) != seen) {
                        continue; // it did: walk on from the same document
                    }
                    return new CycleScan(file, size, records, pos, pos, "the document header at byte " + pos + " reads as the end ("
                            + (header == 0 ? "zero" : "an unfinished write") + "), but bytes follow at byte " + written);
                }
                boolean meta = (header & META_DATA) != 0;
                if (pos == 0 && !meta) {
                    return new CycleScan(file, size, 0, 0, 0, "it does not start with a Chronicle file header");
                }
                long end = pos + 4 + (header & LENGTH);
                if (end > size) {
                    size = ch.size(); // a live journal may have grown since the walk began
                }
                if (end > size) {
                    return new CycleScan(file, size, records, pos, end, "the document at byte " + pos + " declares " + (header & LENGTH)
                            + " bytes, but the file ends at byte " + size);
                }
                if (!meta) {
                    records++;
                }
                pos = (end + 3) & ~3L;
            }
        }
    }

    /** The first byte at or after {@code from} that is not zero, or -1: a file's unwritten tail is zeros. */
    static long firstNonZero(FileChannel ch, long from, long size) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
        for (long at = from; at < size; at += chunk.limit()) {
            chunk.clear();
            int n = ch.read(chunk, at);
            if (n <= 0) {
                return -1;
            }
            int i = 0;
            while (i + Long.BYTES <= n && chunk.getLong(i) == 0) { // a long at a time through the zero tail
                i += Long.BYTES;
            }
            for (; i < n; i++) {
                if (chunk.get(i) != 0) {
                    return at + i;
                }
            }
        }
        return -1;
    }

    /** The little-endian header word at {@code pos}, read through {@code word} (4 bytes); 0 where fewer than 4 bytes are there. */
    static int headerAt(FileChannel ch, ByteBuffer word, long pos) throws IOException {
        word.clear();
        return ch.read(word, pos) == 4 ? word.order(ByteOrder.LITTLE_ENDIAN).getInt(0) : 0;
    }
}

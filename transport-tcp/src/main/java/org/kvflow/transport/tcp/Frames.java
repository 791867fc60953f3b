package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32C;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The kvflow PD wire protocol, version 2: each frame is {@code length(LE32) ‖ type(u8) ‖ body},
 * little-endian fields. The client sends one request frame and waits for its reply frame.
 *
 * <pre>
 * HELLO    magic "KVF2", pageSize, dtype(u8), layers, mlaRowBytes, indexRowBytes, prefillCp,
 *          clientId (16 bytes: every connection of one prefill client sends the same)
 *          [engine: absent or "tcp" for page bytes in PAGES frames; another name (ucx) for page
 *          bytes written into the decode pool by that engine]
 *          → HELLO_OK decodeCp [the landing's description, a string of bytes, for another engine]
 *          | REJECT code message
 * OPEN     reqId, pageCount, senders                 → OPENED n × page | REJECT
 * PAGES    reqId, rank, dstStart(LE64), length, hasData(u8), length × crc32c, then per layer
 *          the MLA bytes of the run, then per layer its indexer bytes   → ACK | REJECT
 * PLACED   reqId, rank, dstStart(LE64), length, length × crc32c: the engine wrote the run's pages
 *          into the decode pool; the decode side checks each CRC on its own bytes → ACK | REJECT
 * COMPLETE reqId, rank                               → ACK | REJECT
 * ABORT    reqId                                     → ACK
 * DIGEST   reqId, seqLen(LE64)                       → DIGESTED crc(LE64) written ready(u8) | REJECT
 * RELEASE  reqId                                     → ACK | REJECT (decode took the ready request)
 * STATS                                              → STATISTICS rejectedPages(LE64) openSessions readySessions
 *                                                      expiredSessions(LE64)
 * </pre>
 * Strings are {@code length(LE32) ‖ UTF-8}.
 */
final class Frames {
    static final int MAGIC = 0x3246564B; // "KVF2" little-endian
    /** Bytes of the client id a HELLO carries. */
    static final int CLIENT_ID_BYTES = 16;
    static final byte HELLO = 1;
    static final byte OPEN = 2;
    static final byte PAGES = 3;
    static final byte COMPLETE = 4;
    static final byte ABORT = 5;
    static final byte DIGEST = 6;
    static final byte STATS = 7;
    static final byte RELEASE = 8;
    static final byte PLACED = 9;
    /** The engine a HELLO without one names: page bytes travel in PAGES frames. */
    static final String TCP = "tcp";
    static final byte HELLO_OK = 101;
    static final byte REJECT = 102;
    static final byte OPENED = 103;
    static final byte ACK = 104;
    static final byte DIGESTED = 105;
    static final byte STATISTICS = 106;
    /**
     * Largest frame body; runs are split to stay below it. Netty's frame decoder grows its buffer
     * in 4 MiB steps past 4 MiB, copying what it holds each time, so 64 MiB frames moved a fraction of
     * what 4 MiB frames move on loopback (docs/benchmarks.md).
     */
    static final int MAX_FRAME = 4 << 20;

    private Frames() {}

    /** A frame under construction: the length prefix is filled in by {@link #bytes()}. */
    static final class Writer {
        private ByteBuffer buf;

        Writer(byte type, int capacity) {
            buf = ByteBuffer.allocate(capacity + 5).order(ByteOrder.LITTLE_ENDIAN);
            buf.putInt(0).put(type);
        }

        Writer i32(int v) {
            ensure(4);
            buf.putInt(v);
            return this;
        }

        Writer i64(long v) {
            ensure(8);
            buf.putLong(v);
            return this;
        }

        Writer u8(int v) {
            ensure(1);
            buf.put((byte) v);
            return this;
        }

        Writer str(String s) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            i32(b.length);
            return raw(b, 0, b.length);
        }

        Writer raw(byte[] b, int off, int len) {
            ensure(len);
            buf.put(b, off, len);
            return this;
        }

        byte[] bytes() {
            buf.putInt(0, buf.position() - 4);
            byte[] out = new byte[buf.position()];
            buf.flip();
            buf.get(out);
            return out;
        }

        private void ensure(int n) {
            if (buf.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + n)).order(ByteOrder.LITTLE_ENDIAN);
                buf.flip();
                bigger.put(buf);
                buf = bigger;
            }
        }
    }

    /** Reads a frame body (after the length prefix was stripped). */
    static final class Reader {
        private final ByteBuffer buf;

        Reader(byte[] frame) {
            buf = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        }

        byte type() {
            return buf.get(0);
        }

        Reader skipType() {
            buf.position(1);
            return this;
        }

        int i32() {
            return buf.getInt();
        }

        long i64() {
            return buf.getLong();
        }

        int u8() {
            return buf.get() & 0xFF;
        }

        String str() {
            int n = buf.getInt();
            if (n < 0 || n > buf.remaining()) {
                throw new IllegalArgumentException("string of " + n + " bytes in a frame with " + buf.remaining() + " left");
            }
            byte[] b = new byte[n];
            buf.get(b);
            return new String(b, StandardCharsets.UTF_8);
        }

        /** A request id: a string of at most {@link DecodeServer#MAX_ID_BYTES} bytes. */
        String id() {
            int n = buf.getInt(buf.position());
            if (n > DecodeServer.MAX_ID_BYTES) {
                throw new IllegalArgumentException("a request id of " + n + " bytes (at most " + DecodeServer.MAX_ID_BYTES + ")");
            }
            return str();
        }

        void raw(byte[] into, int off, int len) {
            buf.get(into, off, len);
        }

        int remaining() {
            return buf.remaining();
        }
    }

    /**
     * CRC32C of page {@code k} of a PAGES frame's data (the contract's page order: every layer's MLA page,
     * then every layer's indexer page), read where the frame holds them: layer {@code l}'s MLA run
     * at {@code mlaStart + l·length·mlaPage}, its indexer run after all MLA runs at {@code indexStart}.
     */
    static int pageCrc(ByteBuf frame, int mlaStart, int indexStart, int layers, int length, int k, int mlaPage, int indexPage) {
        CRC32C crc = new CRC32C();
        for (int l = 0; l < layers; l++) {
            crc.update(frame.nioBuffer(mlaStart + (l * length + k) * mlaPage, mlaPage));
        }
        for (int l = 0; l < layers; l++) {
            crc.update(frame.nioBuffer(indexStart + (l * length + k) * indexPage, indexPage));
        }
        return (int) crc.getValue();
    }

    static byte[] reject(String code, String message) {
        return new Writer(REJECT, 64 + message.length() * 3).str(code).str(message).bytes();
    }

    static byte[] ack() {
        return new Writer(ACK, 0).bytes();
    }
}

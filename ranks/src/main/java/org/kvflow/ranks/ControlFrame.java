package org.kvflow.ranks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * One message of a rank's control connection, in the frame envelope of the PD transfer
 * ({@code length (i32) ‖ type (u8) ‖ body}): a JSON object, and for the staged copies the bytes
 * it moves, raw, behind a CRC32C of the run ({@code docs/formats.md}). Bytes whose checksum does
 * not match arrive as {@link #damage}, never as bytes.
 *
 * @param json   the request or reply, as JSON text
 * @param bytes  the run of bytes it carries, or null
 * @param damage why the frame's bytes were dropped (a checksum or a type that does not match), or null
 */
record ControlFrame(String json, byte @Nullable [] bytes, @Nullable String damage) {
    /** The longest frame either side reads, in bytes (a staged copy's bytes included). */
    static final int MAX_FRAME = (1 << 24) + (1 << 16);
    private static final byte JSON_ONLY = 1;
    private static final byte JSON_AND_BYTES = 2;

    /** A frame of {@code json} alone, or with {@code bytes}. */
    static ControlFrame of(String json, byte @Nullable [] bytes) {
        return new ControlFrame(json, bytes, null);
    }

    /** What splits the coordinator's side of a connection into frames (the length prefix is dropped). */
    static LengthFieldBasedFrameDecoder splitter() {
        return new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4);
    }

    /** The frame on the wire, length prefix first. */
    ByteBuf encode(ByteBufAllocator alloc) {
        byte[] text = json.getBytes(StandardCharsets.UTF_8);
        int body = 4 + text.length + (bytes == null ? 0 : 8 + bytes.length);
        ByteBuf out = alloc.buffer(4 + 1 + body);
        out.writeInt(1 + body).writeByte(bytes == null ? JSON_ONLY : JSON_AND_BYTES).writeInt(text.length).writeBytes(text);
        if (bytes != null) {
            out.writeInt((int) crc(bytes)).writeInt(bytes.length).writeBytes(bytes);
        }
        return out;
    }

    /**
     * Reads one frame (its length prefix already dropped), copying what it carries.
     *
     * @throws IllegalArgumentException if the frame's lengths do not fit it (the connection cannot go on)
     */
    static ControlFrame decode(ByteBuf frame) {
        byte type = frame.readByte();
        String text = frame.readCharSequence(length(frame, "JSON"), StandardCharsets.UTF_8).toString();
        if (type == JSON_ONLY) {
            return of(text, null);
        }
        if (type != JSON_AND_BYTES) {
            return new ControlFrame(text, null, "frame type " + type + " is neither JSON (1) nor JSON and bytes (2)");
        }
        long expected = frame.readUnsignedInt();
        byte[] bytes = new byte[length(frame, "bytes")];
        frame.readBytes(bytes);
        long found = crc(bytes);
        return found == expected ? of(text, bytes) : new ControlFrame(text, null, "the " + bytes.length + " bytes have CRC32C "
                + Long.toHexString(found) + ", the frame says " + Long.toHexString(expected));
    }

    private static int length(ByteBuf frame, String what) {
        int n = frame.readInt();
        if (n < 0 || n > frame.readableBytes()) {
            throw new IllegalArgumentException("a control frame's " + what + " length " + n + " does not fit its " + frame.readableBytes() + " bytes");
        }
        return n;
    }

    private static long crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }
}

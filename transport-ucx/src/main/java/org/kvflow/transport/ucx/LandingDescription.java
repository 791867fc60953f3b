package org.kvflow.transport.ucx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * What a UCX landing tells each client at its handshake: the decode worker's address, and for each
 * registered buffer of the pool (component by component, layer by layer, as the store orders them)
 * its address, its length and the remote key a put into it needs. Its bytes are little-endian:
 * {@code workerAddressLength, workerAddress, buffers, then per buffer address(LE64) length(LE64)
 * keyLength key}.
 *
 * @param worker  the decode worker's UCX address
 * @param buffers the pool's buffers
 */
public record LandingDescription(byte[] worker, List<Region> buffers) {
    /** Most buffers a description may name: two components of up to 4,096 layers. */
    static final int MAX_BUFFERS = 8192;
    /** Most bytes of a worker address or a remote key. */
    static final int MAX_BLOB = 1 << 16;

    /**
     * One registered buffer.
     *
     * @param address where it starts in the decode process
     * @param length  its bytes
     * @param key     the packed remote key
     */
    public record Region(long address, long length, byte[] key) {}

    /** {@return the description as it travels, in the layout the class comment gives} */
    public byte[] bytes() {
        int size = 8 + worker.length;
        for (Region r : buffers) {
            size += 20 + r.key().length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(worker.length).put(worker).putInt(buffers.size());
        for (Region r : buffers) {
            out.putLong(r.address()).putLong(r.length()).putInt(r.key().length).put(r.key());
        }
        return out.array();
    }

    /**
     * A description from the bytes a decode server sent.
     *
     * @throws IllegalArgumentException naming what does not fit (a length past the bytes, too many buffers)
     */
    public static LandingDescription parse(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            byte[] worker = blob(in, "worker address");
            int count = in.getInt();
            if (count < 0 || count > MAX_BUFFERS) {
                throw new IllegalArgumentException("a UCX landing of " + count + " buffers (at most " + MAX_BUFFERS + ")");
            }
            List<Region> buffers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long address = in.getLong();
                long length = in.getLong();
                if (length < 0) {
                    throw new IllegalArgumentException("buffer " + i + " of a UCX landing has length " + length);
                }
                buffers.add(new Region(address, length, blob(in, "remote key of buffer " + i)));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " bytes after the UCX landing's " + count + " buffers");
            }
            return new LandingDescription(worker, List.copyOf(buffers));
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a UCX landing description cut short (" + bytes.length + " bytes)", e);
        }
    }

    private static byte[] blob(ByteBuffer in, String what) {
        int length = in.getInt();
        if (length < 0 || length > MAX_BLOB || length > in.remaining()) {
            throw new IllegalArgumentException("the UCX landing's " + what + " of " + length + " bytes (at most " + MAX_BLOB + ", " + in.remaining()
                    + " left)");
        }
        byte[] b = new byte[length];
        in.get(b);
        return b;
    }
}

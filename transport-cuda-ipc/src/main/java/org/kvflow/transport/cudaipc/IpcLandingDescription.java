package org.kvflow.transport.cudaipc;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * What a CUDA IPC landing tells each client at its handshake: the decode process's id, and for each
 * buffer of its pool (component by component, layer by layer, as the store orders them) its pages,
 * its page size in bytes and the handle another process opens it by. Little-endian:
 * {@code pid(LE64) buffers(LE32), then per buffer pages(LE64) pageBytes(LE32) handleLength(LE32) handle}.
 *
 * @param pid     the decode process
 * @param buffers the pool's buffers
 */
public record IpcLandingDescription(long pid, List<Buffer> buffers) {
    /** Most buffers a description may name: two components of up to 4,096 layers. */
    static final int MAX_BUFFERS = 8192;
    /** Most bytes of one handle. */
    static final int MAX_HANDLE = 4096;

    /** Copies the list. */
    public IpcLandingDescription {
        buffers = List.copyOf(buffers);
    }

    /**
     * One exported buffer.
     *
     * @param pages     its pages
     * @param pageBytes bytes a page
     * @param handle    what opens it in another process
     */
    public record Buffer(long pages, int pageBytes, byte[] handle) {}

    /** {@return the description as it travels, in the layout the class comment gives} */
    public byte[] bytes() {
        int size = 12;
        for (Buffer b : buffers) {
            size += 16 + b.handle().length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(pid).putInt(buffers.size());
        for (Buffer b : buffers) {
            out.putLong(b.pages()).putInt(b.pageBytes()).putInt(b.handle().length).put(b.handle());
        }
        return out.array();
    }

    /**
     * A description from the bytes a decode server sent.
     *
     * @throws IllegalArgumentException naming what does not fit (a count or length out of range, bytes cut short or left over)
     */
    public static IpcLandingDescription parse(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            long pid = in.getLong();
            int count = in.getInt();
            if (count < 0 || count > MAX_BUFFERS) {
                throw new IllegalArgumentException("a CUDA IPC landing of " + count + " buffers (at most " + MAX_BUFFERS + ")");
            }
            List<Buffer> buffers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                long pages = in.getLong();
                int pageBytes = in.getInt();
                int length = in.getInt();
                if (pages < 0 || pageBytes < 1) {
                    throw new IllegalArgumentException("buffer " + i + " of a CUDA IPC landing has " + pages + " pages of " + pageBytes + " bytes");
                }
                if (length < 1 || length > MAX_HANDLE || length > in.remaining()) {
                    throw new IllegalArgumentException("the CUDA IPC landing's handle of buffer " + i + " of " + length + " bytes (1 to " + MAX_HANDLE + ", "
                            + in.remaining() + " left)");
                }
                byte[] handle = new byte[length];
                in.get(handle);
                buffers.add(new Buffer(pages, pageBytes, handle));
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " bytes after the CUDA IPC landing's " + count + " buffers");
            }
            return new IpcLandingDescription(pid, buffers);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a CUDA IPC landing description cut short (" + bytes.length + " bytes)", e);
        }
    }
}

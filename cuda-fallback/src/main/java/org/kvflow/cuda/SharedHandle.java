package org.kvflow.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The handle of a shareable device allocation as it travels between processes: magic "KVM1",
 * the exporting process's id, the POSIX descriptor of the allocation in that process and the
 * allocation's size, 24 bytes little-endian. A CUDA IPC handle (64 bytes) is never mistaken for one.
 */
record SharedHandle(long pid, int fd, long size) {
    private static final int MAGIC = 0x314D564B; // "KVM1"
    private static final int BYTES = 24;

    static byte[] encode(long pid, int fd, long size) {
        return ByteBuffer.allocate(BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(MAGIC).putLong(pid).putInt(fd).putLong(size).array();
    }

    static boolean is(byte[] handle) {
        return handle.length == BYTES && ByteBuffer.wrap(handle).order(ByteOrder.LITTLE_ENDIAN).getInt() == MAGIC;
    }

    /** @throws IllegalArgumentException if {@code handle} is not a shared-allocation handle */
    static SharedHandle decode(byte[] handle) {
        if (!is(handle)) {
            throw new IllegalArgumentException("a shared-allocation handle has " + BYTES + " bytes starting with KVM1, not " + handle.length
                    + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(handle).order(ByteOrder.LITTLE_ENDIAN);
        b.getInt();
        return new SharedHandle(b.getLong(), b.getInt(), b.getLong());
    }
}

package org.kvflow.cuda;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import jcuda.driver.CUipcMemHandle;

/**
 * The 64 bytes of a CUDA IPC memory handle, in and out of JCuda's {@link CUipcMemHandle}, whose
 * byte array JCuda keeps private (it passes the handle to the driver but offers no accessor).
 */
final class IpcHandles {
    static final int BYTES = 64;
    private static final VarHandle RESERVED;

    static {
        try {
            RESERVED = MethodHandles.privateLookupIn(CUipcMemHandle.class, MethodHandles.lookup())
                    .findVarHandle(CUipcMemHandle.class, "reserved", byte[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("JCuda's CUipcMemHandle has no 64-byte 'reserved' field to read: " + e);
        }
    }

    private IpcHandles() {}

    /** The handle's bytes (a copy). */
    static byte[] bytes(CUipcMemHandle handle) {
        return ((byte[]) RESERVED.get(handle)).clone();
    }

    /** A handle holding {@code bytes}. */
    static CUipcMemHandle of(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a CUDA IPC handle has " + BYTES + " bytes, not " + bytes.length);
        }
        CUipcMemHandle handle = new CUipcMemHandle();
        System.arraycopy(bytes, 0, (byte[]) RESERVED.get(handle), 0, BYTES);
        return handle;
    }
}

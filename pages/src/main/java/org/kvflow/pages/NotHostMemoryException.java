package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A host view asked of a buffer in device memory or another process: only heap and pinned host buffers have one. */
public final class NotHostMemoryException extends KvflowException {
    public NotHostMemoryException(String buffer) {
        this(buffer, "device memory");
    }

    /** A host view asked of a buffer that lies in {@code where} (device memory, another process). */
    public NotHostMemoryException(String buffer, String where) {
        super(buffer + " lies in " + where + ": only heap and pinned host buffers can be written in place from the host");
    }
}

package org.kvflow.kernels.pages;

import org.kvflow.core.KvflowException;

/** A host view asked of a buffer in device memory: only heap and pinned host buffers have one. */
public final class NotHostMemoryException extends KvflowException {
    public NotHostMemoryException(String buffer) {
        super(buffer + " lies in device memory: only heap and pinned host buffers can be written in place from the host");
    }
}

package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A page buffer handed to a memory that did not allocate it (or has freed it). */
public final class ForeignBufferException extends KvflowException {
    public ForeignBufferException(String buffer, String memory) {
        super(buffer + " is not a live buffer of the " + memory + " page memory");
    }
}

package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** The asked-for page memory cannot be opened here (no such name, no device, no driver); another may be chosen. */
public final class MemoryUnavailableException extends KvflowException {
    private final String memory;

    public MemoryUnavailableException(String memory, String reason, Throwable cause) {
        super("page memory '" + memory + "' is unavailable: " + reason, cause);
        this.memory = memory;
    }

    public MemoryUnavailableException(String memory, String reason) {
        super("page memory '" + memory + "' is unavailable: " + reason);
        this.memory = memory;
    }

    /** The name that was asked for. */
    public String memory() {
        return memory;
    }
}

package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/**
 * A {@link PageMemory} asked to do what it has no capability for (export a buffer to another
 * process, open one, map several side by side): names the memory and what it cannot do.
 */
public final class MissingCapabilityException extends KvflowException {
    private final String memory;
    private final Class<?> capability;

    /**
     * @param memory     the memory's name
     * @param capability the capability it lacks
     * @param what       what it cannot do, as the message says it ("shares no buffer with other processes")
     */
    public MissingCapabilityException(String memory, Class<?> capability, String what) {
        super("the " + memory + " page memory " + what);
        this.memory = memory;
        this.capability = capability;
    }

    /** The name of the memory that lacks the capability. */
    public String memory() {
        return memory;
    }

    /** The capability it lacks. */
    public Class<?> capability() {
        return capability;
    }
}

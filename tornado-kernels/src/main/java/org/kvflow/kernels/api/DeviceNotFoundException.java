package org.kvflow.kernels.api;

import org.kvflow.core.KvflowException;

/** A device selector that names no device here; the message lists what was found. */
public final class DeviceNotFoundException extends KvflowException {
    private final String selector;

    public DeviceNotFoundException(String selector, String found) {
        super("no kernel device '" + selector + "': found " + found);
        this.selector = selector;
    }

    public String selector() {
        return selector;
    }
}

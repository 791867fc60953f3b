package org.kvflow.transfer;

import org.kvflow.core.KvflowException;

/** A transfer engine asked for by name that is not on the class path, or whose native library does not load here. */
public final class TransferEngineUnavailableException extends KvflowException {
    private final String engine;

    /**
     * @param engine the engine's name
     * @param why    what is missing, in one line
     */
    public TransferEngineUnavailableException(String engine, String why) {
        super("transfer engine " + engine + " is unavailable: " + why);
        this.engine = engine;
    }

    /** {@return the engine's name} */
    public String engine() {
        return engine;
    }

    @Override
    public String code() {
        return "PD-ENGINE";
    }
}

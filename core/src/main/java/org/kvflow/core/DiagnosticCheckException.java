package org.kvflow.core;

/** A diagnostic check of debug mode ({@link DebugMode}) found state that must not be: names what and where. */
public final class DiagnosticCheckException extends KvflowException {
    public DiagnosticCheckException(String message) {
        super("diagnostic check failed: " + message);
    }

    @Override
    public String code() {
        return "DEBUG-CHECK";
    }
}

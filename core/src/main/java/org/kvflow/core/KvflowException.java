package org.kvflow.core;

/**
 * Root of every error kvflow raises on purpose. Subclasses carry the offending values as fields
 * and name them in the message (which request, which page, which flag).
 */
public class KvflowException extends RuntimeException {
    /** The code of an error with neither a contract code nor one of kvflow's own. */
    public static final String GENERIC_CODE = "KVFLOW";

    public KvflowException(String message) {
        super(message);
    }

    public KvflowException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * A short, stable code for metrics and reports: the contract's code where the contract names this error
     * (E-CP-…, E-PD-…, a page-group kind of §9), else kvflow's own (docs/formats.md lists them).
     */
    public String code() {
        return GENERIC_CODE;
    }
}

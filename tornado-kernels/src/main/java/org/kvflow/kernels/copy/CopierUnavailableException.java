package org.kvflow.kernels.copy;

import org.kvflow.core.KvflowException;

/** The asked-for copier cannot run here (no such name, no device, no driver); another may be chosen. */
public final class CopierUnavailableException extends KvflowException {
    private final String copier;

    public CopierUnavailableException(String copier, String reason, Throwable cause) {
        super("page copier '" + copier + "' is unavailable: " + reason, cause);
        this.copier = copier;
    }

    public CopierUnavailableException(String copier, String reason) {
        super("page copier '" + copier + "' is unavailable: " + reason);
        this.copier = copier;
    }

    public String copier() {
        return copier;
    }
}

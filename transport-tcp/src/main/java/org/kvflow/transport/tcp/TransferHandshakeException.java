package org.kvflow.transport.tcp;

import org.kvflow.core.KvflowException;

/** The decode side refused the handshake (contract §10.2 E-PD-3 / E-PD-4); nothing was transferred. */
public final class TransferHandshakeException extends KvflowException {
    private final String code;

    public TransferHandshakeException(String code, String message) {
        super(code + ": " + message);
        this.code = code;
    }

    @Override
    public String code() {
        return code;
    }
}

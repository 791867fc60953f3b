package org.kvflow.transport.tcp;

import org.kvflow.core.KvflowException;

/** The decode side did not answer in time or the connection broke; the call's effect is unknown, so its request fails. */
public final class DecodeUnreachableException extends KvflowException {
    public DecodeUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }

    public DecodeUnreachableException(String message) {
        super(message);
    }

    @Override
    public String code() {
        return "PD-UNREACHABLE";
    }
}

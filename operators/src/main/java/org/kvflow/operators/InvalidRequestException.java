package org.kvflow.operators;

import org.kvflow.core.KvflowException;

/** A prefill request that cannot be prefilled as given (no tokens, a negative token id, a negative decode budget). */
public final class InvalidRequestException extends KvflowException {
    private final String requestId;

    public InvalidRequestException(String requestId, String reason) {
        super("request " + requestId + ": " + reason);
        this.requestId = requestId;
    }

    public String requestId() {
        return requestId;
    }

    @Override
    public String code() {
        return "REQ-INVALID";
    }
}

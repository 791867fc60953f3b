package org.kvflow.operators;

import org.kvflow.core.KvflowException;

/** A prefill request that cannot be prefilled as given (no tokens, a negative token id, a negative decode budget). */
public final class InvalidRequestException extends KvflowException {
    private final String requestId;

    /**
     * The refusal of one request.
     *
     * @param requestId the request
     * @param reason    what is wrong with it
     */
    public InvalidRequestException(String requestId, String reason) {
        super("request " + requestId + ": " + reason);
        this.requestId = requestId;
    }

    /** {@return the refused request's id} */
    public String requestId() {
        return requestId;
    }

    @Override
    public String code() {
        return "REQ-INVALID";
    }
}

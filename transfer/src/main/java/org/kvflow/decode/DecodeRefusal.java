package org.kvflow.decode;

import org.kvflow.core.KvflowException;

/**
 * A request the decode side refused, nothing of it written: which request, and why in words that
 * do not repeat the request, so a refusal sent back to its requester names it once.
 */
public abstract class DecodeRefusal extends KvflowException {
    private final String requestId;
    private final String reason;

    protected DecodeRefusal(String message, String requestId, String reason) {
        super(message);
        this.requestId = requestId;
        this.reason = reason;
    }

    /** {@return the request refused} */
    public String requestId() {
        return requestId;
    }

    /** {@return why, without the request: what a refusal sent back to the requester says} */
    public String reason() {
        return reason;
    }
}

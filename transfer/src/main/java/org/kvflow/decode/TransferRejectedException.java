package org.kvflow.decode;

import org.kvflow.core.KvflowException;

/** The decode side refused pages: unknown request, a page outside the request's decode pages, a position written twice, or a second completion. Nothing was written. */
public final class TransferRejectedException extends KvflowException {
    private final String requestId;
    private final String reason;

    public TransferRejectedException(String requestId, String reason) {
        super("transfer of request " + requestId + " rejected: " + reason);
        this.requestId = requestId;
        this.reason = reason;
    }

    public String requestId() {
        return requestId;
    }

    /** {@return why, without the request: what a refusal sent back to the requester says} */
    public String reason() {
        return reason;
    }

    @Override
    public String code() {
        return "PD-REJECTED";
    }
}

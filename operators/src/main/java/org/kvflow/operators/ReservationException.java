package org.kvflow.operators;

import org.kvflow.core.KvflowException;

/**
 * Page accounting refused a request's chunk: more pages allocated than admission reserved, or a
 * host-cache hit that is not whole pages on the first chunk. The group's accounting is unchanged.
 */
public final class ReservationException extends KvflowException {
    private final String requestId;

    /**
     * The refusal of one request's chunk.
     *
     * @param requestId the request
     * @param reason    what was refused, appended to the request's name
     */
    public ReservationException(String requestId, String reason) {
        super("request " + requestId + reason);
        this.requestId = requestId;
    }

    /** {@return the request's id} */
    public String requestId() {
        return requestId;
    }

    @Override
    public String code() {
        return "ADM-RESERVATION";
    }
}

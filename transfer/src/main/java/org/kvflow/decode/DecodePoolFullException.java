package org.kvflow.decode;

import org.kvflow.core.KvflowException;

/**
 * A request the decode side cannot take now: its pool has fewer free pages than the request
 * needs. Not a malformed request: it may succeed once other requests are released.
 */
public final class DecodePoolFullException extends KvflowException {
    private final String requestId;
    private final String reason;

    /**
     * @param requestId the request refused
     * @param needed    the decode pages it needs
     * @param free      the pool's free pages now
     */
    public DecodePoolFullException(String requestId, int needed, int free) {
        super("request " + requestId + " needs " + needed + " decode pages; the pool has " + free + " free");
        this.requestId = requestId;
        this.reason = needed + " decode pages needed; the pool has " + free + " free";
    }

    /** {@return the request refused} */
    public String requestId() {
        return requestId;
    }

    /** {@return why, without the request: what a refusal sent back to the requester says} */
    public String reason() {
        return reason;
    }

    @Override
    public String code() {
        return "PD-POOL-FULL";
    }
}

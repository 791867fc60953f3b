package org.kvflow.decode;

/**
 * A request the decode side cannot take now: its pool has fewer free pages than the request
 * needs. Not a malformed request: it may succeed once other requests are released.
 */
public final class DecodePoolFullException extends DecodeRefusal {
    /**
     * @param requestId the request refused
     * @param needed    the decode pages it needs
     * @param free      the pool's free pages now
     */
    public DecodePoolFullException(String requestId, int needed, int free) {
        super("request " + requestId + " needs " + needed + " decode pages; the pool has " + free + " free", requestId,
                needed + " decode pages needed; the pool has " + free + " free");
    }

    @Override
    public String code() {
        return "PD-POOL-FULL";
    }
}

package org.kvflow.transport.tcp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.kvflow.decode.DecodeReceiver;

/**
 * Which prefill client opened each request the decode receiver holds, so that a client acts only
 * on its own requests. A claim is dropped when its request is aborted, released or freed by its
 * client's last close, and, for requests that left the receiver another way (released in process,
 * expired), at the server's next sweep ({@link #prune}) or the client's next quota count: the map
 * never holds more than the requests open plus those that left since the last sweep. An id opened
 * again is claimed afresh, so whoever held it before cannot reach the new request.
 */
final class RequestOwners {
    /** One client's hold on one opening of a request id (identity: a later opening of the same id is another claim). */
    private static final class Claim {
        final DecodeServer.Client client;

        Claim(DecodeServer.Client client) {
            this.client = client;
        }
    }

    private final Map<String, Claim> claims = new ConcurrentHashMap<>();
    private final DecodeReceiver receiver;

    RequestOwners(DecodeReceiver receiver) {
        this.receiver = receiver;
    }

    /**
     * {@code client} opens {@code id}: a claim left from an earlier opening of the id (one that left
     * the receiver without a frame and no sweep has dropped yet) goes first, so it reaches the new
     * opening at no moment, not even while {@code opening} opens it; then {@code client} holds the id.
     *
     * @param opening opens the id in the receiver and returns its pages; what it throws leaves no claim
     * @return the pages {@code opening} returned
     */
    long[] open(String id, DecodeServer.Client client, Supplier<long[]> opening) {
        dropIfGone(id);
        long[] pages = opening.get();
        claims.put(id, new Claim(client));
        return pages;
    }

    /** Whether {@code client} opened the request now open as {@code id}. */
    boolean owns(String id, DecodeServer.Client client) {
        Claim c = claims.get(id);
        return c != null && c.client == client;
    }

    /**
     * Drops the claim on {@code id} if the receiver no longer holds the id (after ABORT or RELEASE,
     * or once it left another way); a claim of a client that opened the id again since stays (the
     * check and the removal are one step for the id).
     */
    void dropIfGone(String id) {
        claims.computeIfPresent(id, (key, claim) -> receiver.pageCount(key) == 0 ? null : claim);
    }

    /** Decode pages the requests {@code client} opened hold, ready ones included; claims of requests gone are dropped on the way. */
    long pagesHeldBy(DecodeServer.Client client) {
        long held = 0;
        for (Map.Entry<String, Claim> e : claims.entrySet()) {
            if (e.getValue().client == client) {
                int pages = receiver.pageCount(e.getKey());
                if (pages == 0) {
                    dropIfGone(e.getKey());
                }
                held += pages;
            }
        }
        return held;
    }

    /** {@code client}'s last connection closed: its requests still being received are released, ready ones stay for decode, unclaimed. */
    void clientGone(DecodeServer.Client client) {
        for (Map.Entry<String, Claim> e : claims.entrySet()) {
            if (e.getValue().client == client && claims.remove(e.getKey(), e.getValue()) && !receiver.isReady(e.getKey())) {
                receiver.release(e.getKey());
            }
        }
    }

    /** Drops the claims of requests that are no longer open (released in process, expired). */
    void prune() {
        claims.keySet().forEach(this::dropIfGone);
    }

    /** {@return how many claims are held} */
    int size() {
        return claims.size();
    }
}

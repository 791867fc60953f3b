package org.kvflow.decode;

/** The decode side refused pages: unknown request, a page outside the request's decode pages, a position written twice, or a second completion. Nothing was written. */
public final class TransferRejectedException extends DecodeRefusal {
    public TransferRejectedException(String requestId, String reason) {
        super("transfer of request " + requestId + " rejected: " + reason, requestId, reason);
    }

    @Override
    public String code() {
        return "PD-REJECTED";
    }
}

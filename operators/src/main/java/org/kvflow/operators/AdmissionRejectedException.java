package org.kvflow.operators;

import org.kvflow.core.KvflowException;

/** A request that could never be admitted, even into an empty pool (contract §6.3); rejected alone at intake. */
public final class AdmissionRejectedException extends KvflowException {
    private final String requestId;
    private final long neededTokens;
    private final long capacityTokens;

    /**
     * The refusal of one request.
     *
     * @param requestId      the request
     * @param neededTokens   prompt plus decode reservation
     * @param capacityTokens what the whole pool holds
     */
    public AdmissionRejectedException(String requestId, long neededTokens, long capacityTokens) {
        super("request " + requestId + " needs " + neededTokens + " tokens (prompt + decode reservation), at least the whole pool's "
                + capacityTokens + ": it can never be admitted");
        this.requestId = requestId;
        this.neededTokens = neededTokens;
        this.capacityTokens = capacityTokens;
    }

    /** {@return the refused request's id} */
    public String requestId() {
        return requestId;
    }

    /** {@return tokens the request needs: prompt plus decode reservation} */
    public long neededTokens() {
        return neededTokens;
    }

    /** {@return tokens the whole pool holds} */
    public long capacityTokens() {
        return capacityTokens;
    }

    @Override
    public String code() {
        return "ADM-REJECTED";
    }
}

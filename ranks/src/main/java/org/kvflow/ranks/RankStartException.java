package org.kvflow.ranks;

import org.kvflow.core.KvflowException;

/** A rank process that could not start: it failed to allocate its pool, said something unexpected or did not answer in time. */
public final class RankStartException extends KvflowException {
    private final int rank;

    public RankStartException(int rank, String why) {
        super("rank " + rank + " did not start: " + why);
        this.rank = rank;
    }

    /** The rank that did not start. */
    public int rank() {
        return rank;
    }

    @Override
    public String code() {
        return "RANK-START";
    }
}

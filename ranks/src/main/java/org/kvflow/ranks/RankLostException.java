package org.kvflow.ranks;

import org.kvflow.core.KvflowException;

/** A rank process that died, closed its connection or did not answer in time; its pool is no longer used. */
public final class RankLostException extends KvflowException {
    private final int rank;
    private final String why;

    public RankLostException(int rank, String why) {
        super("rank " + rank + " is lost: " + why);
        this.rank = rank;
        this.why = why;
    }

    /** Why the rank was lost (its process exited, its connection closed, a call went unanswered). */
    public String why() {
        return why;
    }

    /** The rank that was lost. */
    public int rank() {
        return rank;
    }

    @Override
    public String code() {
        return "RANK-LOST";
    }
}

package org.kvflow.dsl;

import org.jspecify.annotations.Nullable;

/**
 * The admission stage (contract §6): the waiting-queue bound and, optionally, the bs>1 caps that
 * override the config's {@code maxRequests} / {@code maxExtendTokens}. Made by {@link Admission}.
 *
 * @param queueCapacity   requests waiting for admission at most (demand upstream stops there)
 * @param maxRequests     requests per batch, or null for the config's cap
 * @param maxExtendTokens new tokens per batch, or null for the config's cap
 */
public record AdmitSpec(int queueCapacity, @Nullable Long maxRequests, @Nullable Long maxExtendTokens) implements StageSpec {
    /** Checks that the queue holds at least one request. */
    public AdmitSpec {
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be >= 1, was " + queueCapacity);
        }
    }

    /**
     * The same stage with a request cap per batch.
     *
     * @param n requests per batch at most
     * @return the new stage
     */
    public AdmitSpec maxRequests(long n) {
        return new AdmitSpec(queueCapacity, n, maxExtendTokens);
    }

    /**
     * The same stage with a new-token cap per batch.
     *
     * @param n new tokens per batch at most
     * @return the new stage
     */
    public AdmitSpec maxExtendTokens(long n) {
        return new AdmitSpec(queueCapacity, maxRequests, n);
    }

    /**
     * The same stage with another waiting-queue bound.
     *
     * @param n requests waiting at most
     * @return the new stage
     */
    public AdmitSpec queueCapacity(int n) {
        return new AdmitSpec(n, maxRequests, maxExtendTokens);
    }

    @Override public String stage() { return "admit"; }
    @Override public int rank() { return 0; }

    @Override
    public String toString() {
        return "admit(queue " + queueCapacity + (maxRequests == null ? "" : ", maxRequests " + maxRequests)
                + (maxExtendTokens == null ? "" : ", maxExtendTokens " + maxExtendTokens) + ")";
    }
}

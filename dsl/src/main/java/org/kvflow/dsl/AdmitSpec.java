package org.kvflow.dsl;

import org.jspecify.annotations.Nullable;

/**
 * The admission stage (SPEC §6): the waiting-queue bound and, optionally, the bs>1 caps that
 * override the config's {@code maxRequests} / {@code maxExtendTokens}. Made by {@link Admission}.
 */
public record AdmitSpec(int queueCapacity, @Nullable Long maxRequests, @Nullable Long maxExtendTokens) implements StageSpec {
    public AdmitSpec {
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be >= 1, was " + queueCapacity);
        }
    }

    public AdmitSpec maxRequests(long n) {
        return new AdmitSpec(queueCapacity, n, maxExtendTokens);
    }

    public AdmitSpec maxExtendTokens(long n) {
        return new AdmitSpec(queueCapacity, maxRequests, n);
    }

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

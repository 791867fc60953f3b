package org.kvflow.core.split;

import java.util.List;

/** The query tokens one CP rank computes in a split batch. */
public sealed interface RankShare permits RankShare.Ranges, RankShare.TokenIds {

    int rank();

    /** Number of tokens this rank computes. */
    long tokens();

    /**
     * In-seq share: chunks {@code r} and {@code 2·cp−1−r}, in that order, never merged (contract §5.1);
     * a multi-request batch concatenates each request's two chunks in batch order.
     */
    record Ranges(int rank, List<TokenRange> ranges) implements RankShare {
        public Ranges {
            ranges = List.copyOf(ranges);
        }

        @Override
        public long tokens() {
            return ranges.stream().mapToLong(TokenRange::length).sum();
        }
    }

    /** Round-robin share: tokens {@code r, r+cp, r+2cp, …} (contract §5.2). */
    record TokenIds(int rank, long[] tokenIds) implements RankShare {
        public TokenIds {
            tokenIds = tokenIds.clone();
        }

        @Override
        public long[] tokenIds() {
            return tokenIds.clone();
        }

        @Override
        public long tokens() {
            return tokenIds.length;
        }
    }
}

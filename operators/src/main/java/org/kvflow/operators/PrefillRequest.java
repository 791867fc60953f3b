package org.kvflow.operators;

import java.util.Objects;

/**
 * A prompt to prefill: its token ids and how many tokens it may generate afterwards (the decode
 * reservation of contract §6.2). Immutable; the token array is copied in and never exposed.
 */
public final class PrefillRequest {
    private final String id;
    private final int[] tokenIds;
    private final int maxNew;

    /**
     * A request to prefill.
     *
     * @param id       the request's id
     * @param tokenIds the prompt (copied)
     * @param maxNew   tokens the decode side may generate (its pages are reserved at admission)
     * @throws InvalidRequestException if the prompt is empty, a token id is negative or {@code maxNew} is
     */
    public PrefillRequest(String id, int[] tokenIds, int maxNew) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tokenIds, "tokenIds");
        if (tokenIds.length == 0) {
            throw new InvalidRequestException(id, "no tokens");
        }
        for (int i = 0; i < tokenIds.length; i++) {
            if (tokenIds[i] < 0) {
                throw new InvalidRequestException(id, "token " + i + " is negative: " + tokenIds[i]);
            }
        }
        if (maxNew < 0) {
            throw new InvalidRequestException(id, "maxNew must be >= 0, was " + maxNew);
        }
        this.id = id;
        this.tokenIds = tokenIds.clone();
        this.maxNew = maxNew;
    }

    /** {@return the request's id} */
    public String id() {
        return id;
    }

    /** {@return prompt length in tokens} */
    public int seqLen() {
        return tokenIds.length;
    }

    /**
     * Token {@code pos} of the prompt.
     *
     * @param pos a position in the prompt
     * @return its token id
     */
    public int tokenId(int pos) {
        return tokenIds[pos];
    }

    /** {@return a copy of the prompt} */
    public int[] tokenIds() {
        return tokenIds.clone();
    }

    /** {@return tokens the decode side may generate} */
    public int maxNew() {
        return maxNew;
    }

    @Override
    public String toString() {
        return "PrefillRequest[" + id + ", " + tokenIds.length + " tokens]";
    }
}

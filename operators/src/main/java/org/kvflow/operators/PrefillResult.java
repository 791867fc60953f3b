package org.kvflow.operators;

import java.util.Map;
import java.util.Objects;

/** How one request left the pipeline: prefilled and transferred, or failed alone. */
public sealed interface PrefillResult permits PrefillResult.Completed, PrefillResult.Failed {

    /** {@return the request this result is for} */
    PrefillRequest request();

    /**
     * Prefilled and handed to the decode side.
     *
     * @param request         the request
     * @param prefixHitTokens tokens served from the device prefix cache or loaded from the host cache instead of computed
     * @param hostHitTokens   of those, the tokens loaded from the host cache
     * @param batches         prefill batches (chunks) the request took
     * @param pagesSent       pages the prefill ranks sent for it, over all ranks
     * @param attention       attention outputs of the sampled query positions, keyed
     *                        {@code layer · seqLen + position}; empty without a KV model
     */
    record Completed(PrefillRequest request, int prefixHitTokens, int hostHitTokens, int batches, int pagesSent,
                     Map<Long, float[]> attention) implements PrefillResult {
        /** Copies the attention outputs. */
        public Completed {
            Objects.requireNonNull(request, "request");
            attention = Map.copyOf(attention);
        }
    }

    /**
     * Rejected at intake or failed on the way; its pages were freed and other requests went on.
     *
     * @param request the request
     * @param error   why, typed and naming the offending value
     */
    record Failed(PrefillRequest request, Throwable error) implements PrefillResult {
        /** Checks that neither field is null. */
        public Failed {
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(error, "error");
        }
    }
}

package org.kvflow.operators.admission;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of one {@link PrefillAdder} pass.
 *
 * @param admitted the batch, in order (an in-flight chunked request first), with admitted lengths
 * @param chunked  the request left unfinished by this pass, or {@code null}
 * @param stop     why the pass stopped
 */
public record AdmissionPass(List<Admitted> admitted, @Nullable String chunked, AdmissionStop stop) {
    /** Copies the admitted list. */
    public AdmissionPass {
        admitted = List.copyOf(admitted);
    }

    /**
     * One admitted request.
     *
     * @param name      the request's name
     * @param extendLen the extend tokens admitted this pass (after load-back and truncation)
     */
    public record Admitted(String name, long extendLen) {}
}

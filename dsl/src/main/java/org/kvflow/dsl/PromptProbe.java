package org.kvflow.dsl;

import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.group.PrefixProbe;

/**
 * A prompt's pages hashed once, to ask several runs what prefix their device caches hold for it
 * ({@link RunPools#cachedPrefixTokens(PromptProbe)}), as a router asks each instance before it
 * sends the request. Asking touches no cache.
 */
public final class PromptProbe {
    final PrefixProbe probe;

    /**
     * Hashes {@code request}'s full pages.
     *
     * @param request  the request
     * @param pageSize the runs' page size
     */
    public PromptProbe(PrefillRequest request, int pageSize) {
        this.probe = new PrefixProbe(request, pageSize);
    }
}

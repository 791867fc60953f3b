package org.kvflow.operators.group;

import java.util.Objects;
import org.kvflow.operators.PrefillRequest;

/**
 * A request's page keys, hashed once, to ask several groups what prefix their device caches hold
 * for it ({@link KvGroup#prefixMatchTokens(PrefixProbe)}), as a router does of each instance. The
 * request is not tracked by any group, and asking touches nothing.
 */
public final class PrefixProbe {
    private final RequestState state;
    private final int pageSize;

    /**
     * Hashes {@code request}'s full pages.
     *
     * @param request  the request
     * @param pageSize the groups' page size
     */
    public PrefixProbe(PrefillRequest request, int pageSize) {
        this.state = new RequestState(Objects.requireNonNull(request, "request"), pageSize, true);
        this.pageSize = pageSize;
    }

    RequestState state(int groupPageSize) {
        if (groupPageSize != pageSize) {
            throw new IllegalArgumentException("a probe of request " + state.id() + " hashed pages of " + pageSize + " tokens; the group's are "
                    + groupPageSize);
        }
        return state;
    }
}

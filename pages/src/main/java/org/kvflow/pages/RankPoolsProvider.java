package org.kvflow.pages;

import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Rank pools held outside the caller's process, found through {@link ServiceLoader}: the
 * kvflow-ranks module provides a process per CP rank. A pipeline whose ownership asks for them
 * opens one set per run, so it names no rank-process class.
 */
public interface RankPoolsProvider {
    /**
     * Rank pools for one run; closing them ends what they started.
     *
     * @param memory  the name of the page memory each rank allocates its pool in ({@code java}, {@code cuda})
     * @param inPlace whether the caller opens the pools in place (they are allocated shareable)
     * @return the pools
     */
    RankPools open(String memory, boolean inPlace);

    /** {@return the provider on the class path, if there is one} */
    static Optional<RankPoolsProvider> find() {
        return ServiceLoader.load(RankPoolsProvider.class).findFirst();
    }
}

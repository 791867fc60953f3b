package org.kvflow.ranks;

import java.time.Duration;
import org.kvflow.pages.RankPools;
import org.kvflow.pages.RankPoolsProvider;

/**
 * Registers rank processes with {@link java.util.ServiceLoader}: {@link RankProcessPools} that
 * start a rank again when it dies, and give each rank a minute to start or to answer.
 */
public final class RankProcessProvider implements RankPoolsProvider {
    /** How long a rank process may take to start or to answer. */
    static final Duration TIMEOUT = Duration.ofMinutes(1);

    @Override
    public RankPools open(String memory, boolean inPlace) {
        return new RankProcessPools(memory, TIMEOUT, inPlace, true);
    }
}

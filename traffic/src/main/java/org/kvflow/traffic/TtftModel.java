package org.kvflow.traffic;

import java.util.Objects;

/**
 * How a replay models time to first token: its cost model, and how many times the trace's own
 * pace the requests arrive at on the modelled clock (whatever pace the replay itself runs at).
 *
 * @param costs the cost model
 * @param speed arrival speed on the modelled clock, {@code > 0}
 */
public record TtftModel(CostModel costs, double speed) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException for a speed that is not a positive number
     */
    public TtftModel {
        Objects.requireNonNull(costs, "costs");
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("modelled arrival speed " + speed + " must be a finite number > 0");
        }
    }
}

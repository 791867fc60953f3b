package org.kvflow.operators.group;

/** What a faulty stage does to a request's state, for the tests that show the next stage refuses it. */
public final class FaultyStage {
    private FaultyStage() {}

    /** Moves token {@code t}'s loc by {@code delta}, as a faulty stage would corrupt a request-to-token row. */
    public static void corruptLoc(RequestState state, int t, long delta) {
        state.overwriteLoc(t, state.loc(t) + delta);
    }
}

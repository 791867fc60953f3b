package org.kvflow.cuda.graph;

import java.util.List;

/**
 * When {@link LaunchReplay} launches directly, captures or replays, kept apart from CUDA so it can
 * be checked on any machine: a key unlike the one captured and unlike the call before's runs
 * directly; the same key twice in a row is captured; the captured key is replayed until another
 * key is captured in its place. Two keys that take turns keep the one captured first (no capture
 * at every other call). Not thread-safe.
 */
final class ReplayChoice {
    /** What a call does. */
    enum Step {
        DIRECT,
        CAPTURE,
        REPLAY
    }

    /** The key captured, or null. */
    private List<Object> captured;
    /** The key of the call before when it ran directly, or null. */
    private List<Object> direct;

    /** {@return what a call with {@code key} does}, remembered for the next call. */
    Step next(List<Object> key) {
        if (key.equals(captured)) {
            direct = null;
            return Step.REPLAY;
        }
        if (!key.equals(direct)) {
            direct = List.copyOf(key);
            return Step.DIRECT;
        }
        captured = direct;
        direct = null;
        return Step.CAPTURE;
    }

    /** Forgets the captured key (its graph was freed, or its capture failed): the next calls start over. */
    void forget() {
        captured = null;
        direct = null;
    }
}

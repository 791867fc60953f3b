package org.kvflow.cuda.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.kvflow.cuda.graph.ReplayChoice.Step.CAPTURE;
import static org.kvflow.cuda.graph.ReplayChoice.Step.DIRECT;
import static org.kvflow.cuda.graph.ReplayChoice.Step.REPLAY;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayChoiceTest {
    private static List<ReplayChoice.Step> steps(ReplayChoice choice, List<List<Object>> keys) {
        List<ReplayChoice.Step> out = new ArrayList<>();
        keys.forEach(k -> out.add(choice.next(k)));
        return out;
    }

    @Test
    void aKeyIsCapturedTheSecondTimeInARowAndReplayedAfter() {
        List<Object> a = List.of(256, 64, 2);
        assertThat(steps(new ReplayChoice(), List.of(a, a, a, a))).containsExactly(DIRECT, CAPTURE, REPLAY, REPLAY);
    }

    @Test
    void keysThatChangeAtEveryCallAreNeverCaptured() {
        List<List<Object>> causal = new ArrayList<>();
        for (int keys = 512; keys <= 8192; keys += 512) {
            causal.add(List.of(4096, 256, 1, keys));
        }
        assertThat(steps(new ReplayChoice(), causal)).containsOnly(DIRECT);
    }

    @Test
    void theCapturedKeyIsReplayedBetweenOthersUntilAnotherIsCaptured() {
        List<Object> a = List.of(1, 2);
        List<Object> b = List.of(3, 4);
        assertThat(steps(new ReplayChoice(), List.of(a, a, b, a, b, b, a, b)))
                .containsExactly(DIRECT, CAPTURE, DIRECT, REPLAY, DIRECT, CAPTURE, DIRECT, REPLAY);
    }

    @Test
    void keysAreComparedByValueNotByIdentity() {
        ReplayChoice choice = new ReplayChoice();
        choice.next(new ArrayList<>(List.of(7, 8L)));
        assertThat(choice.next(new ArrayList<>(List.of(7, 8L)))).isEqualTo(CAPTURE);
        assertThat(choice.next(List.of(7, 8L))).isEqualTo(REPLAY);
        assertThat(choice.next(List.of(7, 8))).as("an int is not a long").isEqualTo(DIRECT);
    }

    @Test
    void twoKeysTakingTurnsKeepTheOneCapturedFirst() {
        List<Object> a = List.of(1);
        List<Object> b = List.of(2);
        assertThat(steps(new ReplayChoice(), List.of(a, a, b, a, b, a, b, a)))
                .containsExactly(DIRECT, CAPTURE, DIRECT, REPLAY, DIRECT, REPLAY, DIRECT, REPLAY);
    }

    @Test
    void forgettingStartsOverWithADirectLaunch() {
        ReplayChoice choice = new ReplayChoice();
        List<Object> a = List.of(1);
        steps(choice, List.of(a, a, a));
        choice.forget();
        assertThat(steps(choice, List.of(a, a, a))).containsExactly(DIRECT, CAPTURE, REPLAY);
    }

    @Test
    void aKeyChangedAfterItWasPassedDoesNotChangeWhatWasRemembered() {
        ReplayChoice choice = new ReplayChoice();
        List<Object> key = new ArrayList<>(List.of(1, 2));
        choice.next(key);
        key.set(1, 3);
        assertThat(choice.next(List.of(1, 2))).isEqualTo(CAPTURE);
    }
}

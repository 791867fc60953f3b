package org.kvflow.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.kvflow.dsl.PromptProbe;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;

/**
 * The cluster simulation: one instance agrees with the replay's modelled times, routers route as
 * they say, the PD link adds its transfer, and the instance search finds the fewest that meet the bound.
 */
class ClusterSimulationTest {
    private static final CostModel H200 = CostModel.read(CostModelTest.H200);
    /** Requests far apart: no queueing. */
    private static final long APART_MS = 1_000_000;

    @Test
    void oneInstanceGivesTheTimesOfTheReplayOnTheRealPipelineWithinFivePercent() {
        List<TraceRequest> trace = TraceFile.read(TraceTest.mooncake()).subList(0, 300);
        TraceReplay sizes = new TraceReplay(8, 64, 4_096);
        double speed = 0.25; // a quarter of the trace's pace: queues form and drain
        for (boolean shared : List.of(true, false)) {
            ModelledTtft replay = sizes.replay(trace, shared, 0, new TtftModel(H200, speed)).modelled();
            ClusterReport sim = new ClusterSimulation(sizes, H200).run(trace, shared,
                    new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), speed, 30);
            assertThat(sim.served()).isEqualTo(replay.ttft().count());
            for (double[] pair : List.of(new double[] {sim.ttft().p50(), replay.ttft().p50()}, new double[] {sim.ttft().p90(), replay.ttft().p90()},
                    new double[] {sim.ttft().p99(), replay.ttft().p99()})) {
                assertThat(pair[0]).as((shared ? "shared" : "replicated") + ": simulated against the replay's").isCloseTo(pair[1], within(0.05 * pair[1]));
            }
        }
    }

    private static TraceRequest prompt(int line, long atMs, long... hashes) {
        return new TraceRequest(line, atMs, hashes.length * TraceRequest.BLOCK, 1, hashes);
    }

    @Test
    void aPrefixAwareRouterSendsARepeatWhereItsPrefixIsAndRoundRobinDoesNot() {
        // A, B, B again, A again, far apart: round robin puts each repeat on the other instance
        List<TraceRequest> trace = List.of(prompt(1, 0, 1, 2, 3, 4), prompt(2, APART_MS, 5, 6, 7, 8), prompt(3, 2 * APART_MS, 5, 6, 7, 8),
                prompt(4, 3 * APART_MS, 1, 2, 3, 4));
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(2, 64, 1_024), H200);
        ClusterReport rr = sim.run(trace, true, new ClusterSpec(2, 1, Router.ROUND_ROBIN, 0, 0), 1, 1e6);
        assertThat(rr.requestsPerInstance()).containsExactly(2, 2);
        assertThat(rr.hitRatio()).as("round robin: no repeat meets its prefix").isZero();
        ClusterReport aware = sim.run(trace, true, new ClusterSpec(2, 1, Router.PREFIX_AWARE, 0, 0), 1, 1e6);
        // each repeat hits all but its last page (one token is always computed; whole pages are reused)
        assertThat(aware.hitRatio()).as("prefix-aware: both repeats hit").isCloseTo(2.0 * (4 * 512 - 64) / (4 * 4 * 512), within(1e-9));
        assertThat(aware.ttft().p50()).isLessThan(rr.ttft().p50());
    }

    @Test
    void aLeastLoadedRouterTakesTheIdlerInstanceWhereThePrefixAwareOneWaitsForReuse() {
        // at time 0: A, then a short C, then A again
        List<TraceRequest> trace = List.of(prompt(1, 0, 1, 2, 3, 4), prompt(2, 0, 9), prompt(3, 0, 1, 2, 3, 4));
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(2, 64, 1_024), H200);
        double a = H200.prefillSeconds(2_048, 0, 2, true);
        double c = H200.prefillSeconds(512, 0, 2, true);
        double again = H200.prefillSeconds(2_048, 2_048 - 64, 2, true);
        assertThat(c + a).as("the numbers the test stands on").isGreaterThan(a + again);
        ClusterReport least = sim.run(trace, true, new ClusterSpec(2, 1, Router.LEAST_LOADED, 0, 0), 1, 1e6);
        assertThat(least.requestsPerInstance()).as("C and the repeat on the idler instance").containsExactly(1, 2);
        assertThat(least.ttft().max()).isCloseTo(c + a, within(1e-12));
        ClusterReport aware = sim.run(trace, true, new ClusterSpec(2, 1, Router.PREFIX_AWARE, 0, 0), 1, 1e6);
        assertThat(aware.requestsPerInstance()).as("the repeat waits behind A and reuses its pages").containsExactly(2, 1);
        assertThat(aware.ttft().max()).isCloseTo(a + again, within(1e-12));
    }

    @Test
    void theFirstTokenWaitsForTheKvToReachItsDecodeInstanceOneTransferALinkAtATime() {
        List<TraceRequest> trace = List.of(prompt(1, 0, 1, 2), prompt(2, 0, 3, 4));
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(2, 64, 1_024), H200);
        double prefill = H200.prefillSeconds(1_024, 0, 2, true);
        double transfer = 1_024 * 1_000.0 / 1e6;
        ClusterReport two = sim.run(trace, true, new ClusterSpec(2, 2, Router.LEAST_LOADED, 1e6, 1_000), 1, 1e6);
        assertThat(two.ttft().max()).as("two links").isCloseTo(prefill + transfer, within(1e-9));
        ClusterReport one = sim.run(trace, true, new ClusterSpec(2, 1, Router.LEAST_LOADED, 1e6, 1_000), 1, 1e6);
        assertThat(one.ttft().max()).as("one link: the second transfer waits").isCloseTo(prefill + 2 * transfer, within(1e-9));
        assertThat(one.ttft().p50()).isCloseTo(prefill + transfer, within(1e-9));
    }

    @Test
    void theSearchFindsTheFewestInstancesThatMeetTheBound() {
        List<TraceRequest> trace = TraceFile.read(TraceTest.mooncake()).subList(0, 120);
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(8, 64, 4_096), H200);
        ClusterSpec spec = new ClusterSpec(1, 1, Router.LEAST_LOADED, 0, 0);
        double slo = 10;
        OptionalInt needed = sim.instancesFor(trace, true, spec, 1, slo, 0.9, 64);
        assertThat(needed).isPresent();
        int n = needed.getAsInt();
        assertThat(n).as("one instance cannot keep up at the trace's pace").isGreaterThan(1);
        assertThat(sim.run(trace, true, spec.withPrefillInstances(n), 1, slo).meets(0.9)).isTrue();
        assertThat(sim.run(trace, true, spec.withPrefillInstances(n - 1), 1, slo).meets(0.9)).isFalse();
        assertThat(sim.instancesFor(trace, true, spec, 1, 1e-6, 0.9, 4)).as("a bound no prefill meets").isEmpty();
    }

    /**
     * Three requests at once, none sharing a prefix, with a bound of exactly one prefill: each must
     * have an instance to itself, so the search passes 1, 2, 4 and bisects back to 3; a first token
     * exactly at the bound meets it.
     */
    @Test
    void theSearchBisectsBelowThePowerOfTwoThatMeetsTheBoundAndABoundMetExactlyCounts() {
        List<TraceRequest> trace = List.of(prompt(1, 0, 1), prompt(2, 0, 2), prompt(3, 0, 3));
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(2, 64, 1_024), H200);
        ClusterSpec spec = new ClusterSpec(1, 1, Router.LEAST_LOADED, 0, 0);
        double p = H200.prefillSeconds(512, 0, 2, true);
        ClusterReport two = sim.run(trace, true, spec.withPrefillInstances(2), 1, p);
        assertThat(two.sloAttainment()).as("the third waits for the first").isCloseTo(2.0 / 3, within(1e-12));
        ClusterReport three = sim.run(trace, true, spec.withPrefillInstances(3), 1, p);
        assertThat(three.ttft().max()).isEqualTo(p);
        assertThat(three.sloAttainment()).as("every first token exactly at the bound").isEqualTo(1.0);
        assertThat(three.requestsPerSecond()).as("three served by the time p").isCloseTo(3 / p, within(1e-9 * 3 / p));
        assertThat(sim.instancesFor(trace, true, spec, 1, p, 1.0, 8)).hasValue(3);
        assertThat(sim.instancesFor(trace, true, spec, 1, p, 2.0 / 3, 8)).as("two thirds: two instances").hasValue(2);
        assertThat(sim.instancesFor(trace, true, spec, 1, p, 1.0, 2)).as("no more than two tried").isEmpty();
    }

    /** Each instance's hit ratio is its own requests' (0 for an instance that got none), and they weigh up to the cluster's. */
    @Test
    void hitRatiosPerInstanceAreTheirOwnRequestsAndAnEmptyTraceServesNothing() {
        // A twice on one instance, B on the other
        List<TraceRequest> trace = List.of(prompt(1, 0, 1, 2, 3, 4), prompt(2, 0, 5, 6, 7, 8), prompt(3, APART_MS, 1, 2, 3, 4));
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(2, 64, 1_024), H200);
        ClusterReport r = sim.run(trace, true, new ClusterSpec(3, 1, Router.PREFIX_AWARE, 0, 0), 1, 1e6);
        int withA = r.requestsPerInstance().indexOf(2);
        assertThat(r.requestsPerInstance()).as("A and its repeat together, B alone, one instance idle").containsExactlyInAnyOrder(2, 1, 0);
        double repeat = (4 * 512 - 64) / (2.0 * 4 * 512);
        assertThat(r.hitRatioPerInstance().get(withA)).isCloseTo(repeat, within(1e-12));
        assertThat(r.hitRatioPerInstance()).as("B's instance and the idle one").containsOnlyOnce(repeat).filteredOn(h -> h != repeat).containsOnly(0.0);
        assertThat(r.hitRatio()).isCloseTo((4 * 512 - 64) / (3.0 * 4 * 512), within(1e-12));

        ClusterReport none = sim.run(List.of(), true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), 1, 1);
        assertThat(none.requests()).isZero();
        assertThat(none.served()).isZero();
        assertThat(none.sloAttainment()).as("nothing asked, nothing missed").isEqualTo(1.0);
        assertThat(none.requestsPerSecond()).isZero();
        assertThat(none.hitRatio()).isZero();
        assertThat(none.hitRatioPerInstance()).containsExactly(0.0);
    }

    @Test
    void badSizesAndNamesAreRefusedNamingThem() {
        assertThatThrownBy(() -> new ClusterSpec(0, 1, Router.ROUND_ROBIN, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("prefill instances 0 and decode instances 1 must be >= 1");
        assertThatThrownBy(() -> new ClusterSpec(1, 1, Router.ROUND_ROBIN, -1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("PD link -1.0 B/s and 0 KV bytes a token must be finite and >= 0");
        assertThatThrownBy(() -> Router.of("random")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("router \"random\" is not one of [round-robin, least-loaded, prefix-aware]");
        ClusterSimulation sim = new ClusterSimulation(new TraceReplay(2, 64, 64), H200);
        assertThatThrownBy(() -> sim.run(List.of(), true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("speed 0.0 and SLO 1.0 s must be finite numbers > 0");
        assertThatThrownBy(() -> sim.run(List.of(), true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("speed 1.0 and SLO 0.0 s must be finite numbers > 0");
        assertThatThrownBy(() -> sim.instancesFor(List.of(), true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), 1, 1, 0, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attainment 0.0 must be in (0, 1] and the most instances 4 >= 1");
        assertThatThrownBy(() -> sim.instancesFor(List.of(), true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), 1, 1, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attainment 1.0 must be in (0, 1] and the most instances 0 >= 1");
        assertThatThrownBy(() -> sim.instancesFor(List.of(), true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0), 1, 1, 1.5, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("attainment 1.5 must be in (0, 1] and the most instances 4 >= 1");
    }

    @Test
    void aRequestTooLongForAnInstancesPoolIsRefusedAndTheOthersAreServed() {
        List<TraceRequest> trace = List.of(prompt(1, 0, 1, 2), prompt(2, 10, 3, 4, 5, 6, 7), prompt(3, 20, 13, 14));
        ClusterReport r = new ClusterSimulation(new TraceReplay(2, 64, 16), H200).run(trace, true, new ClusterSpec(1, 1, Router.ROUND_ROBIN, 0, 0),
                1, 1e6);
        assertThat(r.refused()).isEqualTo(1);
        assertThat(r.served()).isEqualTo(2);
        assertThat(r.sloAttainment()).as("the refused one counts against the bound").isCloseTo(2.0 / 3, within(1e-12));
    }

    @Test
    void aProbeHashedForAnotherPageSizeIsRefusedNamingTheRequest() {
        try (PrefillInstance instance = new PrefillInstance(new TraceReplay(2, 64, 64).pipeline(true))) {
            PrefillRequest first = new PrefillRequest("first", TraceTokens.of(prompt(1, 0, 1, 2)), 1);
            assertThat(instance.prefill(first)).isInstanceOf(PrefillResult.Completed.class);
            assertThat(instance.cachedPrefixTokens(new PromptProbe(first, 64))).as("its pages, less the last, are cached").isEqualTo(1_024 - 64);
            PromptProbe other = new PromptProbe(new PrefillRequest("other", TraceTokens.of(prompt(2, 0, 1, 2)), 1), 32);
            assertThatThrownBy(() -> instance.cachedPrefixTokens(other)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a probe of request other hashed pages of 32 tokens; the group's are 64");
        }
    }
}

package org.kvflow.traffic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import org.kvflow.dsl.PromptProbe;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;

/**
 * A cluster by discrete-event simulation: requests arrive at the trace's timestamps (divided by a
 * speed), a router sends each to one of N prefill instances, each instance serves its requests in
 * order on a modelled clock ({@link ModelledInstance}, the {@link CostModel}), and the KV goes to
 * one of M decode instances in turn over that instance's link, one transfer at a time; a request's
 * time to first token ends when its KV has arrived. What each request hits is not modelled: every
 * prefill instance is a real pipeline ({@link PrefillInstance}, pages only) whose admission,
 * ownership, prefix cache and eviction serve it, in the order the instance serves its requests.
 * Events are taken in arrival order, which is each instance's service order, so a request finds
 * in its instance's cache exactly the prefixes of the requests served there before it.
 */
public final class ClusterSimulation {
    private final TraceReplay sizes;
    private final CostModel costs;

    /**
     * A simulation of instances of {@code sizes}' CP size and per-rank pool.
     *
     * @param sizes CP size, page size and pool of each prefill instance
     * @param costs the cost model of prefill
     */
    public ClusterSimulation(TraceReplay sizes, CostModel costs) {
        this.sizes = Objects.requireNonNull(sizes, "sizes");
        this.costs = Objects.requireNonNull(costs, "costs");
    }

    /**
     * Runs the trace through one layout's cluster.
     *
     * @param trace      the requests, in arrival order
     * @param shared     shared KV ({@code true}) or the replicated baseline, on every instance
     * @param spec       the cluster
     * @param speed      arrivals at this many times the trace's pace, {@code > 0}
     * @param sloSeconds the time-to-first-token bound, {@code > 0}
     * @return what the cluster made of the trace
     */
    public ClusterReport run(List<TraceRequest> trace, boolean shared, ClusterSpec spec, double speed, double sloSeconds) {
        if (!(speed > 0) || !(sloSeconds > 0) || Double.isInfinite(speed) || Double.isInfinite(sloSeconds)) {
            throw new IllegalArgumentException("speed " + speed + " and SLO " + sloSeconds + " s must be finite numbers > 0");
        }
        int n = spec.prefillInstances();
        List<PrefillInstance> instances = new ArrayList<>(n);
        ModelledInstance[] clocks = new ModelledInstance[n];
        long[] hit = new long[n];
        long[] input = new long[n];
        int[] routed = new int[n];
        double[] linkFree = new double[spec.decodeInstances()];
        List<Double> ttft = new ArrayList<>();
        int refused = 0;
        int nextDecode = 0;
        double lastDone = 0;
        long first = trace.isEmpty() ? 0 : trace.getFirst().timestampMs();
        try {
            for (int i = 0; i < n; i++) {
                instances.add(new PrefillInstance(sizes.pipeline(shared)));
                clocks[i] = new ModelledInstance(costs, sizes.cp(), shared);
            }
            for (int k = 0; k < trace.size(); k++) {
                TraceRequest r = trace.get(k);
                double arrival = r.secondsAfter(first) / speed;
                PrefillRequest request = new PrefillRequest(TraceReplay.id(r), TraceTokens.of(r), r.outputLength());
                int at = route(spec.router(), k, arrival, request, instances, clocks, shared);
                routed[at]++;
                if (instances.get(at).prefill(request) instanceof PrefillResult.Completed c) {
                    double done = arrival + clocks[at].serve(arrival, r.inputLength(), c.prefixHitTokens() - c.hostHitTokens(), c.hostHitTokens());
                    if (spec.pdBytesPerSecond() > 0) {
                        int d = nextDecode++ % linkFree.length;
                        linkFree[d] = Math.max(done, linkFree[d]) + (double) r.inputLength() * spec.kvBytesPerToken() / spec.pdBytesPerSecond();
                        done = linkFree[d];
                    }
                    ttft.add(done - arrival);
                    lastDone = Math.max(lastDone, done);
                    hit[at] += c.prefixHitTokens();
                    input[at] += r.inputLength();
                } else {
                    refused++;
                }
            }
        } finally {
            instances.forEach(PrefillInstance::close);
        }
        double met = ttft.stream().filter(s -> s <= sloSeconds).count();
        List<Double> perInstance = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            perInstance.add(input[i] == 0 ? 0 : (double) hit[i] / input[i]);
        }
        long allInput = Arrays.stream(input).sum();
        return new ClusterReport(shared ? "shared" : "replicated", spec, speed, sloSeconds, trace.size(), ttft.size(), refused,
                trace.isEmpty() ? 1 : met / trace.size(), Latencies.of(ttft), lastDone == 0 ? 0 : ttft.size() / lastDone,
                allInput == 0 ? 0 : (double) Arrays.stream(hit).sum() / allInput, perInstance, Arrays.stream(routed).boxed().toList());
    }

    private int route(Router router, int k, double now, PrefillRequest request, List<PrefillInstance> instances, ModelledInstance[] clocks,
                      boolean shared) {
        if (router == Router.ROUND_ROBIN) {
            return k % clocks.length;
        }
        PromptProbe probe = router == Router.PREFIX_AWARE ? new PromptProbe(request, sizes.pageSize()) : null;
        int best = 0;
        double bestCost = Double.POSITIVE_INFINITY;
        for (int i = 0; i < clocks.length; i++) {
            double cost = clocks[i].backlog(now);
            if (probe != null) {
                cost += costs.prefillSeconds(request.seqLen(), instances.get(i).cachedPrefixTokens(probe), sizes.cp(), shared);
            }
            if (cost < bestCost) {
                best = i;
                bestCost = cost;
            }
        }
        return best;
    }

    /**
     * The fewest prefill instances whose cluster meets the bound for {@code attainment} of the
     * requests: doubling from one, then halving the interval (attainment taken to grow with
     * instances, as it does when each takes a share of the load).
     *
     * @param trace      the requests, in arrival order
     * @param shared     the layout
     * @param spec       the cluster; its prefill instance count is what is searched
     * @param speed      arrivals at this many times the trace's pace
     * @param sloSeconds the time-to-first-token bound
     * @param attainment the share of requests that must meet it, in {@code (0, 1]}
     * @param most       the most instances tried
     * @return the fewest instances, or empty when {@code most} do not meet it
     */
    public OptionalInt instancesFor(List<TraceRequest> trace, boolean shared, ClusterSpec spec, double speed, double sloSeconds, double attainment,
                                    int most) {
        if (!(attainment > 0 && attainment <= 1) || most < 1) {
            throw new IllegalArgumentException("attainment " + attainment + " must be in (0, 1] and the most instances " + most + " >= 1");
        }
        int low = 0; // known not to meet it (0: nothing known)
        int high = 1;
        while (!run(trace, shared, spec.withPrefillInstances(high), speed, sloSeconds).meets(attainment)) {
            if (high == most) {
                return OptionalInt.empty();
            }
            low = high;
            high = Math.min(most, high * 2);
        }
        while (high - low > 1) {
            int mid = (low + high) >>> 1;
            if (run(trace, shared, spec.withPrefillInstances(mid), speed, sloSeconds).meets(attainment)) {
                high = mid;
            } else {
                low = mid;
            }
        }
        return OptionalInt.of(high);
    }
}

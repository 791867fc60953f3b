package org.kvflow.traffic;

import java.util.List;

/**
 * What one layout's simulated cluster made of a trace.
 *
 * @param layout               {@code shared} or {@code replicated}
 * @param spec                 the cluster
 * @param speed                arrivals at this many times the trace's pace
 * @param sloSeconds           the time-to-first-token bound
 * @param requests             requests in the trace
 * @param served               requests served
 * @param refused              requests an instance refused (too long for its pool, say)
 * @param sloAttainment        served requests whose time to first token met the bound, over all requests
 * @param ttft                 arrival to first token on the decode side, served requests
 * @param requestsPerSecond    served requests over the modelled time from the first arrival to the last first token
 * @param hitRatio             prompt tokens the instances' caches served (device cache and host tier), over the served requests' prompt tokens
 * @param hitRatioPerInstance  the same for each prefill instance's requests (0 for one that got none)
 * @param requestsPerInstance  requests routed to each prefill instance
 */
public record ClusterReport(String layout, ClusterSpec spec, double speed, double sloSeconds, int requests, int served, int refused,
                            double sloAttainment, Latencies ttft, double requestsPerSecond, double hitRatio, List<Double> hitRatioPerInstance,
                            List<Integer> requestsPerInstance) {
    /** Copies the lists. */
    public ClusterReport {
        hitRatioPerInstance = List.copyOf(hitRatioPerInstance);
        requestsPerInstance = List.copyOf(requestsPerInstance);
    }

    /**
     * Whether the cluster met the bound for enough requests.
     *
     * @param attainment the share of all requests that must meet it
     * @return whether at least that share did
     */
    public boolean meets(double attainment) {
        return sloAttainment >= attainment;
    }
}

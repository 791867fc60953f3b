package org.kvflow.samples.demo;

import java.util.List;

/**
 * What the demo measured.
 *
 * @param firstFailures       the first failed requests (at most five), each as {@code <id>: <why>}
 * @param peakSharedPages     peak physical pages over all ranks, shared KV
 * @param peakReplicatedPages the same for the replicated run of the same requests
 * @param capacityRatio       contract §3.4 ratio for the demo's pools
 * @param scratchBytes        largest full view one batch needed (beside the pools)
 * @param checksPassed        requests whose decode KV equals the replicated run's
 * @param kernelDevice        where the compute kernels (KV rows, indexer top-k, attention) ran ({@code opencl:0 (NVIDIA H200 / …)})
 * @param transfer            the engine that moved the page bytes to decode ({@code tcp}, {@code ucx})
 */
public record DemoReport(int cpSize, int requests, int completed, int failed, List<String> firstFailures, long tokens, long batches, double seconds,
                         long peakSharedPages, long peakReplicatedPages, int pagesPerRank, double capacityRatio, long scratchBytes,
                         long transferBytes, String transfer, long decodePid, long journalRecords, long journalRefused, int checksPassed,
                         String kernelDevice, PagesTimeline sharedPages, PagesTimeline replicatedPages) {
    public boolean ok() {
        return failed == 0 && checksPassed == requests && journalRefused == 0;
    }
}

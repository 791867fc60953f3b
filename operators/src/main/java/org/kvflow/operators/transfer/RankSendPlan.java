package org.kvflow.operators.transfer;

import java.util.List;
import org.kvflow.transfer.PageRun;

/**
 * What one prefill rank sends for one chunk (contract §8.2): its owned pages with their logical
 * positions, grouped into contiguous runs, and whether it reports completion after them.
 *
 * @param rank     the prefill rank
 * @param pairs    its owned pages with their positions and decode pages
 * @param runs     the same pages as contiguous runs
 * @param complete whether it reports completion after them
 */
public record RankSendPlan(int rank, List<PagePair> pairs, List<PageRun> runs, boolean complete) {
    /** Copies the lists. */
    public RankSendPlan {
        pairs = List.copyOf(pairs);
        runs = List.copyOf(runs);
    }
}

package org.kvflow.operators.transfer;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.pages.PageListMismatchException;
import org.kvflow.transfer.PageRun;

/**
 * The PD sender algorithm of contract §8.2 for CP shared KV: each rank keeps only the positions whose
 * page it owns, pairs each with the decode page at the <em>same position</em> ({@code D[i]}, never
 * by order in a filtered list), drops positions the decode page list does not cover, and groups the
 * pairs into contiguous runs. Pure and thread-safe.
 */
public final class TransferPlanner {
    private TransferPlanner() {}

    /**
     * The plan of rank {@code rank} for the page-position slice {@code [start, end)}.
     *
     * @param rank         the prefill rank
     * @param ownership    which rank owns each logical page
     * @param start        the slice's first position
     * @param end          one past its last
     * @param prefillPages the request's page table {@code P} (logical page ids)
     * @param decodePages  the decode side's page list {@code D}, any length
     * @param lastChunk    whether this chunk completes the request
     * @return the rank's plan
     */
    public static RankSendPlan plan(int rank, OwnershipMap ownership, int[] prefillPages, long[] decodePages,
                                    int start, int end, boolean lastChunk) {
        if (start < 0 || start > end || end > prefillPages.length) {
            throw new IllegalArgumentException("chunk [" + start + ", " + end + ") outside the " + prefillPages.length
                    + " prefill pages");
        }
        List<PagePair> pairs = new ArrayList<>();
        for (int pos = start; pos < end && pos < decodePages.length; pos++) {
            if (ownership.owner(prefillPages[pos]) == rank) {
                pairs.add(new PagePair(pos, ownership.localPage(prefillPages[pos]), decodePages[pos]));
            }
        }
        long[] src = pairs.stream().mapToLong(PagePair::srcLocal).toArray();
        long[] dst = pairs.stream().mapToLong(PagePair::dst).toArray();
        return new RankSendPlan(rank, pairs, groupRuns(src, dst), lastChunk);
    }

    /**
     * The plans of every rank {@code 0 .. cp-1}, ascending.
     *
     * @param ownership    which rank owns each logical page
     * @param prefillPages the request's page table {@code P}
     * @param decodePages  the decode side's page list {@code D}
     * @param start        the slice's first position
     * @param end          one past its last
     * @param lastChunk    whether this chunk completes the request
     * @return one plan per rank
     */
    public static List<RankSendPlan> planAll(OwnershipMap ownership, int[] prefillPages, long[] decodePages,
                                             int start, int end, boolean lastChunk) {
        List<RankSendPlan> plans = new ArrayList<>(ownership.cpSize());
        for (int r = 0; r < ownership.cpSize(); r++) {
            plans.add(plan(r, ownership, prefillPages, decodePages, start, end, lastChunk));
        }
        return plans;
    }

    /**
     * Groups parallel page lists into runs that are contiguous on both sides (upstream's
     * {@code group_concurrent_contiguous}): a run breaks where either side is not previous + 1.
     *
     * @param src the source pages
     * @param dst the destination pages, pair by pair
     * @return the runs
     * @throws org.kvflow.core.KvflowException if both lists are non-empty and their lengths differ
     */
    public static List<PageRun> groupRuns(long[] src, long[] dst) {
        if (src.length == 0 || dst.length == 0) {
            return List.of();
        }
        if (src.length != dst.length) {
            throw new PageListMismatchException(src.length, dst.length);
        }
        List<PageRun> runs = new ArrayList<>();
        int runStart = 0;
        for (int i = 1; i <= src.length; i++) {
            boolean breaks = i == src.length || src[i] != src[i - 1] + 1 || dst[i] != dst[i - 1] + 1;
            if (breaks) {
                runs.add(new PageRun(src[runStart], dst[runStart], i - runStart));
                runStart = i;
            }
        }
        return runs;
    }

    /**
     * The page-position slice a chunk of request tokens {@code [startToken, endToken)} sends
     * (contract §8.2): non-last chunks send only fully filled pages, so their end is floored to a page
     * boundary; the last chunk sends up to the prompt length, tail page included.
     *
     * @param startToken the chunk's first token
     * @param endToken   one past its last
     * @param lastChunk  whether this chunk completes the request
     * @param pageSize   tokens per page
     * @return {@code {firstPos, endPos}}
     */
    public static int[] chunkPageSlice(long startToken, long endToken, boolean lastChunk, int pageSize) {
        long end = lastChunk ? endToken : endToken - endToken % pageSize;
        long first = startToken / pageSize;
        long last = Math.max(first, Math.ceilDiv(end, pageSize));
        return new int[] {Math.toIntExact(first), Math.toIntExact(last)};
    }

    /**
     * Replicated-CP baseline (contract §4.2, §8.1): rank {@code r} sends the positional slice
     * {@code [start_r, start_r + count_r)} of an {@code n}-page list.
     *
     * @param pageCount pages of the list
     * @param cpSize    prefill ranks
     * @param rank      the rank
     * @return {@code {start, count}}
     */
    public static int[] replicatedSlice(int pageCount, int cpSize, int rank) {
        int base = pageCount / cpSize;
        int rem = pageCount % cpSize;
        return new int[] {rank * base + Math.min(rank, rem), base + (rank < rem ? 1 : 0)};
    }
}

package org.kvflow.kernels.aparapi;

import java.util.List;

/**
 * The top-k twin for the cuda translation: up to three digit passes of 12, 10 and 10 bits whose
 * counters are bins in local memory filled by atomic adds (which the cuda translation maps onto
 * shared-memory atomics; Aparapi's OpenCL does not take them on local memory). A pass ends the
 * search early when the threshold's bin is kept whole: then every key from that bin up is
 * selected and no tie needs counting (with scores spread as usual, after the second pass). Keys
 * are not stored: every pass reads the scores and takes their order keys again, which the cuda
 * translation reads straight from the floats' bits. So a row of scores is read twice or three
 * times to find its threshold, then twice to place the selection, and never written.
 *
 * <p>With few rows (at most half as many as the work-groups a launch aims at) a row is cut into
 * slices, up to {@link #MAX_SLICES}, a work-group each, and the digit passes become launch passes
 * ({@link #SLICE_PASSES}): the slices' bins are summed into the row's by atomic adds on global
 * memory, every slice of the row resolves the same digit from them, then each slice counts its
 * keys above the threshold and at it, and places its selection after the counts of the slices
 * before it. Unlike the segments of {@link TopKAparapi}, no candidates are kept and merged, so a
 * row of 131,072 keys spreads over 64 work-groups however large {@code k} is.
 */
final class TopKByAtomics extends TopKAparapi {
    /** Bits of the first pass; the other two take 10 each. */
    private static final int FIRST_BITS = 12;
    private static final int BITS = 10;

    /** Most slices a row is cut into in the sliced mode. */
    static final int MAX_SLICES = 64;
    /** Launch passes of the sliced mode: clear the rows' bins; count the three digit levels, each pass resolving the level before; count against the threshold; place. */
    static final int SLICE_PASSES = 6;
    /** Fewest keys a slice holds: two a work-item. */
    private static final int MIN_SLICE = 2 * LOCAL;
    /** Bins of a row's three digit levels in {@link #levelBins}: 4,096, then 1,024 twice. */
    private static final int ROW_BINS = (1 << FIRST_BITS) + 2 * (1 << BITS);
    /** Ints a row's resolved levels take in {@link #levelPicks}: three levels of (digits so far, ties to keep, whole). */
    private static final int ROW_PICKS = 9;

    /** Whether the last pass kept its threshold bin whole (1): the search is over. */
    @Local final int[] whole = new int[1];

    /** Sliced mode: per row, its three digit levels' bins, summed over its slices. */
    int[] levelBins = new int[1];
    /** Sliced mode: per row and level, what the level resolved (as {@link #choose} leaves it). */
    int[] levelPicks = new int[1];
    /** Sliced mode: per row and slice, its keys above the threshold and its keys equal to it. */
    int[] sliceCounts = new int[1];

    /** Room for the sliced mode's bookkeeping of as many rows as can be sliced (the rows' count may shrink between launches). */
    @Override
    void bind(List<Object> args) {
        super.bind(args);
        int rows = Math.min(counts.length, TARGET_GROUPS / 2);
        levelBins = new int[Math.max(1, rows * ROW_BINS)];
        levelPicks = new int[Math.max(1, rows * ROW_PICKS)];
        sliceCounts = new int[Math.max(1, rows * MAX_SLICES * 2)];
    }

    @Override
    void putOwn() {
        super.putOwn();
        put(levelBins);
        put(levelPicks);
        put(sliceCounts);
    }

    @Override
    int globalSize() {
        int g = slices(shape[0], shape[1]);
        return g > 1 && shape[2] > 0 ? shape[0] * g * LOCAL : super.globalSize();
    }

    @Override
    int passes() {
        return slices(shape[0], shape[1]) > 1 ? SLICE_PASSES : super.passes();
    }

    /** Slices per row (same on host and device): 1, not sliced, where the rows alone fill the device or a row is short. */
    int slices(int rows, int nk) {
        int g = min(TARGET_GROUPS / max(1, rows), nk / MIN_SLICE);
        if (rows > TARGET_GROUPS / 2) {
            g = 1;
        }
        return max(1, min(MAX_SLICES, g));
    }

    @Override
    public void run() {
        if (slices(shape[0], shape[1]) > 1) {
            runSlices();
        } else {
            runSegments();
        }
    }

    /** No: every pass takes the scores' keys again, so the buffer holds only candidates (a score array's size less on the device). */
    @Override
    boolean keepsRowKeys() {
        return false;
    }

    @Override
    int firstKey(int src, int at) {
        return key(src, at);
    }

    @Override
    int key(int src, int at) {
        int k = 0;
        if (src == FROM_SCORES) {
            k = orderKey(scores[at]);
        } else {
            k = keys[at];
        }
        return k;
    }

    /** Counts {@code key}'s digit at {@code shift} ({@code last} its largest value) if its higher bits match {@code prefix}. */
    private void count(int key, int mask, int prefix, int shift, int last) {
        int u = key ^ signBit;
        if ((u & mask) == prefix) {
            atomicAdd(hist, (u >> shift) & last, 1);
        }
    }

    @Override
    void narrow(int src, int base, int n, int k, int lid) {
        int prefix = 0;
        int remaining = k;
        for (int shift = 2 * BITS; shift >= 0; shift = shift - BITS) {
            int digits = 1 << BITS;
            int mask = 0;
            if (shift == 2 * BITS) {
                digits = 1 << FIRST_BITS;
            } else {
                mask = -1 << (shift + BITS);
            }
            for (int b = lid; b < digits; b += LOCAL) {
                hist[b] = 0;
            }
            localBarrier();
            countDigits(src, base, n, mask, prefix, shift, digits - 1, lid);
            localBarrier();
            choose(digits, shift, prefix, remaining, lid);
            prefix = pick[0];
            remaining = pick[1];
            if (whole[0] == 1) {
                shift = -1;
            }
            localBarrier();
        }
    }

    /**
     * Counts into {@link #hist} the digit at {@code shift} of each of {@code n} keys at {@code base}
     * whose higher bits match {@code prefix}, four loads in flight. Every pass reads the keys
     * alike ({@link #firstKey} is {@link #key} here).
     */
    private void countDigits(int src, int base, int n, int mask, int prefix, int shift, int last, int lid) {
        int j = lid;
        for (; j + 3 * LOCAL < n; j += 4 * LOCAL) {
            int a = key(src, base + j);
            int b = key(src, base + j + LOCAL);
            int c = key(src, base + j + 2 * LOCAL);
            int d = key(src, base + j + 3 * LOCAL);
            count(a, mask, prefix, shift, last);
            count(b, mask, prefix, shift, last);
            count(c, mask, prefix, shift, last);
            count(d, mask, prefix, shift, last);
        }
        for (; j < n; j += LOCAL) {
            count(key(src, base + j), mask, prefix, shift, last);
        }
    }

    /**
     * One launch pass of the sliced mode for one slice of one row (see the class comment). Pass 0
     * clears the row's bins; pass 1 counts the first digit level; passes 2 to 4 resolve the level
     * the pass before counted (every slice alike, slice 0 keeping the result for the next pass),
     * then pass 2 and 3 count the next level and pass 4 counts the slice's keys above the
     * threshold and at it; pass 5 places the slice's selection.
     */
    private void runSlices() {
        int nk = shape[1];
        int k = shape[2];
        int g = slices(shape[0], nk);
        int row = getGroupId() / g;
        int slice = getGroupId() - row * g;
        int lid = getLocalId();
        int pass = getPassId();
        int count = counts[row];
        int length = (count + g - 1) / g;
        int from = min(slice * length, count);
        int n = min(from + length, count) - from;
        int base = row * nk + from;
        int bins = row * ROW_BINS;
        if (pass == 0) {
            for (int i = slice * LOCAL + lid; i < ROW_BINS; i += g * LOCAL) {
                levelBins[bins + i] = 0;
            }
        }
        int prefix = 0;
        int remaining = k;
        int done = 0;
        if (pass >= 3) {
            int at = row * ROW_PICKS + 3 * (pass - 3);
            prefix = levelPicks[at];
            remaining = levelPicks[at + 1];
            done = levelPicks[at + 2];
        }
        int resolving = 0;
        if (pass >= 2 && pass <= 4 && count > k) {
            resolving = 1;
        }
        if (resolving == 1 && done == 0) {
            int level = pass - 2;
            int digits = levelDigits(level);
            int at = bins + levelStart(level);
            for (int b = lid; b < digits; b += LOCAL) {
                hist[b] = levelBins[at + b];
            }
            localBarrier();
            choose(digits, levelShift(level), prefix, remaining, lid);
            prefix = pick[0];
            remaining = pick[1];
            done = whole[0];
            localBarrier();
        }
        if (resolving == 1 && slice == 0 && lid == 0) {
            int at = row * ROW_PICKS + 3 * (pass - 2);
            levelPicks[at] = prefix;
            levelPicks[at + 1] = remaining;
            levelPicks[at + 2] = done;
        }
        if (pass >= 1 && pass <= 3 && count > k && done == 0) {
            int level = pass - 1;
            int digits = levelDigits(level);
            int shift = levelShift(level);
            int mask = 0;
            if (level > 0) {
                mask = -1 << (shift + BITS);
            }
            for (int b = lid; b < digits; b += LOCAL) {
                hist[b] = 0;
            }
            localBarrier();
            countDigits(FROM_SCORES, base, n, mask, prefix, shift, digits - 1, lid);
            localBarrier();
            int at = bins + levelStart(level);
            for (int b = lid; b < digits; b += LOCAL) {
                if (hist[b] != 0) {
                    atomicAdd(levelBins, at + b, hist[b]);
                }
            }
        }
        if (pass == 4 && count > k) {
            long counted = countAgainst(FROM_SCORES, base, spanStart(n, lid), spanStart(n, lid + 1), prefix ^ signBit);
            int above = (int) (counted >> 32);
            int ties = (int) counted;
            int aboveBefore = exclusiveSum(lid, above);
            int tiesBefore = exclusiveSum(lid, ties);
            if (lid == LOCAL - 1) {
                int at = (row * MAX_SLICES + slice) * 2;
                sliceCounts[at] = aboveBefore + above;
                sliceCounts[at + 1] = tiesBefore + ties;
            }
        }
        if (pass == 5 && count <= k && slice == 0) {
            selectShortRow(row, count, k, lid);
        }
        if (pass == 5 && count > k) {
            int aboveBefore = 0;
            int tiesBefore = 0;
            for (int s = 0; s < slice; s++) {
                aboveBefore += sliceCounts[(row * MAX_SLICES + s) * 2];
                tiesBefore += sliceCounts[(row * MAX_SLICES + s) * 2 + 1];
            }
            placeSelected(FROM_SCORES, base, from, n, prefix ^ signBit, remaining, aboveBefore, tiesBefore, TO_SELECTED, row * k, lid);
        }
    }

    /** Bins of digit level {@code level} (0 the highest digits). */
    private int levelDigits(int level) {
        return level == 0 ? 1 << FIRST_BITS : 1 << BITS;
    }

    /** Where level {@code level}'s bins start in a row's {@link #levelBins}. */
    private int levelStart(int level) {
        return level == 0 ? 0 : (1 << FIRST_BITS) + (level - 1) * (1 << BITS);
    }

    /** The shift of level {@code level}'s digit in a key. */
    private int levelShift(int level) {
        return (2 - level) * BITS;
    }

    /**
     * Picks the digit at {@code shift} of the {@code remaining}-th best key among those whose
     * higher digits are {@code prefix}, from the {@code digits} bins counted in {@link #hist}:
     * leaves the key's digits so far in {@code pick[0]} and how many keys from its bin are still
     * to keep in {@code pick[1]}, or, where the bin is kept whole, the key just below it with no
     * ties to keep and {@code whole[0]} set. The bins are summed in chunks, one per work-item,
     * high digits first; the work-item whose chunk holds the key picks the digit. All work-items
     * call it and see the result.
     */
    private void choose(int digits, int shift, int prefix, int remaining, int lid) {
        if (lid == 0) {
            whole[0] = 0;
        }
        int per = digits / LOCAL;
        int from = (LOCAL - 1 - lid) * per; // work-item 0 sums the highest digits
        int total = 0;
        for (int b = 0; b < per; b++) {
            total += hist[from + b];
        }
        int above = exclusiveSum(lid, total);
        int mine = 0;
        if (above < remaining) {
            if (above + total >= remaining) {
                mine = 1;
            }
        }
        if (mine == 1) {
            int chosen = from;
            int found = 0;
            for (int b = per - 1; b >= 0; b--) {
                if (found == 0) {
                    if (above + hist[from + b] >= remaining) {
                        chosen = from + b;
                        found = 1;
                    } else {
                        above += hist[from + b];
                    }
                }
            }
            int start = prefix | (chosen << shift);
            pick[0] = start;
            pick[1] = remaining - above;
            if (remaining - above == hist[chosen]) {
                if (start != 0) { // the whole bin is kept: the threshold is the key just below it, with no ties kept
                    pick[0] = start - 1;
                    pick[1] = 0;
                    whole[0] = 1;
                }
            }
        }
        localBarrier();
    }
}

package org.kvflow.kernels.aparapi;

/**
 * The top-k twin for the cuda translation: up to three digit passes of 12, 10 and 10 bits whose
 * counters are bins in local memory filled by atomic adds (which the cuda translation maps onto
 * shared-memory atomics; Aparapi's OpenCL does not take them on local memory). A pass ends the
 * search early when the threshold's bin is kept whole: then every key from that bin up is
 * selected and no tie needs counting (with scores spread as usual, after the second pass). Keys
 * are not stored: every pass reads the scores and takes their order keys again, which the cuda
 * translation reads straight from the floats' bits. So a row of scores is read twice or three
 * times to find its threshold, then twice to place the selection, and never written. The bins are
 * summed in chunks, one per work-item, high digits first; the work-item whose chunk holds the
 * {@code k}-th best key picks the digit.
 */
final class TopKByAtomics extends TopKAparapi {
    /** Bits of the first pass; the other two take 10 each. */
    private static final int FIRST_BITS = 12;
    private static final int BITS = 10;

    /** Whether the last pass kept its threshold bin whole (1): the search is over. */
    @Local final int[] whole = new int[1];

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
            int first = 0;
            if (shift == 2 * BITS) {
                digits = 1 << FIRST_BITS;
                first = 1;
            } else {
                mask = -1 << (shift + BITS);
            }
            for (int b = lid; b < digits; b += LOCAL) {
                hist[b] = 0;
            }
            if (lid == 0) {
                whole[0] = 0;
            }
            localBarrier();
            int j = lid;
            for (; j + 7 * LOCAL < n; j += 8 * LOCAL) { // eight loads in flight a work-item
                int a = passKey(first, src, base + j);
                int b = passKey(first, src, base + j + LOCAL);
                int c = passKey(first, src, base + j + 2 * LOCAL);
                int d = passKey(first, src, base + j + 3 * LOCAL);
                int e = passKey(first, src, base + j + 4 * LOCAL);
                int f = passKey(first, src, base + j + 5 * LOCAL);
                int g = passKey(first, src, base + j + 6 * LOCAL);
                int h = passKey(first, src, base + j + 7 * LOCAL);
                count(a, mask, prefix, shift, digits - 1);
                count(b, mask, prefix, shift, digits - 1);
                count(c, mask, prefix, shift, digits - 1);
                count(d, mask, prefix, shift, digits - 1);
                count(e, mask, prefix, shift, digits - 1);
                count(f, mask, prefix, shift, digits - 1);
                count(g, mask, prefix, shift, digits - 1);
                count(h, mask, prefix, shift, digits - 1);
            }
            for (; j < n; j += LOCAL) {
                count(passKey(first, src, base + j), mask, prefix, shift, digits - 1);
            }
            localBarrier();
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
            prefix = pick[0];
            remaining = pick[1];
            if (whole[0] == 1) {
                shift = -1;
            }
            localBarrier();
        }
    }
}

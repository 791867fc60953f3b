package org.kvflow.kernels.aparapi;

/**
 * The top-k twin for the cuda translation: three digit passes of 12, 10 and 10 bits whose
 * counters are bins in local memory filled by atomic adds (which the cuda translation maps onto
 * shared-memory atomics; Aparapi's OpenCL does not take them on local memory). Each pass reads the
 * row's keys once, so a row is swept three times to find its threshold where the column-counter
 * twin sweeps it eight times. The bins are summed in chunks, one per work-item, high digits first;
 * the work-item whose chunk holds the {@code k}-th best key picks the digit.
 */
final class TopKByAtomics extends TopKAparapi {
    /** Bits of the first pass; the other two take 10 each. */
    private static final int FIRST_BITS = 12;
    private static final int BITS = 10;

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
            int fused = 0; // the first pass over scores also turns them into keys
            if (shift == 2 * BITS) {
                digits = 1 << FIRST_BITS;
                if (src == FROM_SCORES) {
                    fused = 1;
                }
            } else {
                mask = -1 << (shift + BITS);
            }
            for (int b = lid; b < digits; b += LOCAL) {
                hist[b] = 0;
            }
            localBarrier();
            int j = lid;
            for (; j + 3 * LOCAL < n; j += 4 * LOCAL) {
                int a = keyAt(fused, base + j);
                int b = keyAt(fused, base + j + LOCAL);
                int c = keyAt(fused, base + j + 2 * LOCAL);
                int d = keyAt(fused, base + j + 3 * LOCAL);
                count(a, mask, prefix, shift, digits - 1);
                count(b, mask, prefix, shift, digits - 1);
                count(c, mask, prefix, shift, digits - 1);
                count(d, mask, prefix, shift, digits - 1);
            }
            for (; j < n; j += LOCAL) {
                count(keyAt(fused, base + j), mask, prefix, shift, digits - 1);
            }
            localBarrier();
            int per = digits / LOCAL;
            int first = (LOCAL - 1 - lid) * per; // work-item 0 sums the highest digits
            int total = 0;
            for (int b = 0; b < per; b++) {
                total += hist[first + b];
            }
            int above = exclusiveSum(lid, total);
            int mine = 0;
            if (above < remaining) {
                if (above + total >= remaining) {
                    mine = 1;
                }
            }
            if (mine == 1) {
                int chosen = first;
                int found = 0;
                for (int b = per - 1; b >= 0; b--) {
                    if (found == 0) {
                        if (above + hist[first + b] >= remaining) {
                            chosen = first + b;
                            found = 1;
                        } else {
                            above += hist[first + b];
                        }
                    }
                }
                pick[0] = prefix | (chosen << shift);
                pick[1] = remaining - above;
            }
            localBarrier();
            prefix = pick[0];
            remaining = pick[1];
            localBarrier();
        }
    }
}

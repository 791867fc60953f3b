package org.kvflow.kernels.aparapi;

/**
 * The top-k twin for OpenCL devices: eight digit passes of 4 bits, each work-item counting into
 * a column of its own in local memory (Aparapi's OpenCL declares its atomics for global memory
 * only), the columns summed, one work-item picking the digit. Every work-item keeps four loads in
 * flight.
 */
final class TopKByColumns extends TopKAparapi {
    private static final int DIGITS = 16;

    @Local final int[] bins = new int[DIGITS];

    /** Counts {@code key}'s digit at {@code shift} in this work-item's column, if its higher bits match {@code prefix}. */
    private void tally(int key, int mask, int prefix, int shift, int lid) {
        int u = key ^ signBit;
        if ((u & mask) == prefix) {
            int at = ((u >> shift) & (DIGITS - 1)) * LOCAL + lid;
            hist[at] = hist[at] + 1;
        }
    }

    /** Yes: {@link #orderKey} is long on OpenCL, so the first pass keeps the keys for the later ones. */
    @Override
    boolean keepsRowKeys() {
        return true;
    }

    /** The first pass over scores turns them into keys and keeps them. */
    @Override
    int firstKey(int src, int at) {
        int k = 0;
        if (src == FROM_SCORES) {
            k = orderKey(scores[at]);
            keys[at] = k;
        } else {
            k = keys[at];
        }
        return k;
    }

    @Override
    int key(int src, int at) {
        return keys[at];
    }

    @Override
    void narrow(int src, int base, int n, int k, int lid) {
        int prefix = 0;
        int remaining = k;
        for (int shift = 28; shift >= 0; shift = shift - 4) {
            int mask = 0;
            if (shift < 28) {
                mask = -1 << (shift + 4);
            }
            for (int b = 0; b < DIGITS; b++) {
                hist[b * LOCAL + lid] = 0;
            }
            int first = 0;
            if (shift == 28) {
                first = 1;
            }
            // The sweep is written out in each twin: moved into one method of the base class, the
            // OpenCL Aparapi wrote of it corrupted the JVM's heap on PoCL (a crash in TopKRowsTest).
            int j = lid;
            for (; j + 3 * LOCAL < n; j += 4 * LOCAL) {
                int a = passKey(first, src, base + j);
                int b = passKey(first, src, base + j + LOCAL);
                int c = passKey(first, src, base + j + 2 * LOCAL);
                int d = passKey(first, src, base + j + 3 * LOCAL);
                tally(a, mask, prefix, shift, lid);
                tally(b, mask, prefix, shift, lid);
                tally(c, mask, prefix, shift, lid);
                tally(d, mask, prefix, shift, lid);
            }
            for (; j < n; j += LOCAL) {
                tally(passKey(first, src, base + j), mask, prefix, shift, lid);
            }
            localBarrier();
            int bin = lid & (DIGITS - 1);
            int columns = (lid / DIGITS) * DIGITS;
            int sum = 0;
            for (int c = 0; c < DIGITS; c++) {
                sum += hist[bin * LOCAL + columns + c];
            }
            scan[lid] = sum;
            localBarrier();
            if (lid < DIGITS) {
                int total = 0;
                for (int p = 0; p < LOCAL / DIGITS; p++) {
                    total += scan[p * DIGITS + lid];
                }
                bins[lid] = total;
            }
            localBarrier();
            if (lid == 0) {
                int above = 0;
                int chosen = 0;
                int found = 0;
                for (int b = DIGITS - 1; b >= 0; b--) {
                    if (found == 0) {
                        if (above + bins[b] >= remaining) {
                            chosen = b;
                            found = 1;
                        } else {
                            above += bins[b];
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

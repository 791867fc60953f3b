package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.topKRows}: a radix select on an order key, then a compaction in
 * position order, so the result is the reference's exactly (ties to the smaller position).
 * <ol>
 * <li>Each score becomes a signed int whose order is the score's (−0 equals +0, NaN ranks above
 *     +∞), as {@code Float.floatToIntBits} would give; Aparapi cannot translate that call, so the
 *     exponent comes from {@code log2} corrected against a table of exact powers of two, and the
 *     mantissa from scaling by exact powers of two (no rounding anywhere). Subnormal scores keep
 *     their order only on devices that do not flush them to zero.</li>
 * <li>Digit passes, most significant first, narrow down the key of the k-th best score
 *     ({@link #narrow}): what is left is the threshold key {@code T} and how many scores equal to
 *     {@code T} are kept. How a pass counts digits is the subclass's: {@link TopKByColumns} with
 *     a column of counters per work-item (any OpenCL device), {@link TopKByAtomics} with
 *     atomic adds on local memory (the cuda translation).</li>
 * <li>Each work-item takes a contiguous span of positions; two prefix sums over the work-group
 *     place every score above {@code T}, and the first ties at {@code T}, at their rank in
 *     position order.</li>
 * </ol>
 * A work-group of 256 selects one row. With few rows that leaves most of a GPU idle, so a row is
 * then cut into up to {@link #MAX_SEGMENTS} segments: the first launch pass selects each
 * segment's top k as candidates (kept in position order), the second selects the row's top k
 * among its candidates (the row's top k is among them). The rows' keys, where a twin keeps them
 * ({@link #keepsRowKeys}), then the candidates' keys, go to one scratch buffer the twin holds
 * itself (so every sweep reads one array), the candidates' positions to a second.
 */
abstract class TopKAparapi extends AparapiTask {
    /** Most segments a row is cut into. */
    static final int MAX_SEGMENTS = 8;
    /** Work-groups a launch aims at: about eight per multiprocessor of an H200. */
    private static final int TARGET_GROUPS = 1024;
    /** Counters of local memory a digit pass may use. */
    static final int COUNTERS = 16 * LOCAL;
    private static final int MIN_EXPONENT = -126;
    /** Where a selection reads its keys: the row's scores, or the row's segment candidates. */
    static final int FROM_SCORES = 0;
    private static final int FROM_CANDIDATES = 1;
    /** Where it writes: the row's result, or the segment's candidates. */
    private static final int TO_SELECTED = 0;
    private static final int TO_CANDIDATES = 1;
    /** What a work-group does in a pass: nothing, a row of at most k, a whole row, a short segment, a segment, a row's candidates. */
    private static final int NONE = 0;
    private static final int SHORT = 1;
    private static final int ROW = 2;
    private static final int COPY = 3;
    private static final int SEGMENT = 4;
    private static final int MERGE = 5;

    float[] scores = new float[1];
    int[] counts = new int[1];
    int[] shape = new int[3];
    int[] selected = new int[1];
    /** The rows' keys if the twin keeps them, then the rows' candidate keys from {@code candidateOffset} on: one array, so one load path. */
    int[] keys = new int[1];
    int[] candidatePositions = new int[1];
    int candidateOffset;
    /** {@code 2^e} at index {@code e + 126}, for {@code e} in [-126, 127]: exact. */
    final float[] pow2 = new float[254];
    /** Constants as non-final fields: passed as kernel arguments, not inlined as literals by javac. */
    int signBit = Integer.MIN_VALUE;
    float maxFinite = Float.MAX_VALUE;
    float minNormal = Float.MIN_NORMAL;

    /** A digit pass's counters. */
    @Local final int[] hist = new int[COUNTERS];
    @Local final int[] scan = new int[LOCAL];
    /** The digit passes' result (prefix, ties still to keep), then a running tie rank per work-item. */
    @Local final int[] pick = new int[2 + LOCAL];

    TopKAparapi() {
        for (int e = MIN_EXPONENT; e <= 127; e++) {
            pow2[e - MIN_EXPONENT] = Math.scalb(1.0f, e);
        }
    }

    @Override
    void bind(List<Object> args) {
        scores = ((FloatArray) args.get(0)).toHeapArray();
        counts = ((IntArray) args.get(1)).toHeapArray();
        shape = ((IntArray) args.get(2)).toHeapArray();
        selected = ((IntArray) args.get(3)).toHeapArray();
        candidateOffset = keepsRowKeys() ? scores.length : 0;
        candidatePositions = new int[Math.max(1, Math.multiplyExact(selected.length, MAX_SEGMENTS))];
        keys = new int[Math.addExact(candidateOffset, candidatePositions.length)];
    }

    @Override
    void putOwn() {
        put(pow2);
        put(keys);
        put(candidatePositions);
    }

    @Override
    int globalSize() {
        return shape[2] == 0 ? 0 : shape[0] * segments(shape[0], shape[1], shape[2]) * LOCAL;
    }

    @Override
    int passes() {
        return shape[2] > 0 && segments(shape[0], shape[1], shape[2]) > 1 ? 2 : 1;
    }

    /** Segments per row: enough work-groups to fill the device, each segment at least 2k long (same on host and device). */
    private int segments(int rows, int nk, int k) {
        int g = min(TARGET_GROUPS / max(1, rows), nk / max(1, 2 * k));
        return max(1, min(MAX_SEGMENTS, g));
    }

    /**
     * A signed int ordered as {@code x} is (see the class comment): the bits
     * {@code Float.floatToIntBits} gives, negative values' magnitude bits flipped, −0 as +0, every NaN
     * as the positive quiet NaN. An intrinsic: the cuda translation reads the float's bits instead.
     */
    int orderKey(float x) {
        float a = abs(x);
        int mag = 0;
        if (x != x) {
            mag = 0x7FC00000;
        } else if (a > maxFinite) {
            mag = 0x7F800000;
        } else if (a >= minNormal) {
            int e = (int) floor(log2(a));
            e = max(MIN_EXPONENT, min(127, e));
            float p = pow2[e - MIN_EXPONENT];
            if (a < p) {
                e = e - 1;
            } else if (a >= p + p) {
                e = e + 1;
            }
            int part = e / 2; // two exact scalings: 2^-e alone is subnormal for e = 127
            float m = a * pow2[-part - MIN_EXPONENT] * pow2[part - e - MIN_EXPONENT];
            mag = ((e + 127) << 23) | (int) ((m - 1.0f) * 8388608.0f);
        } else if (a > 0.0f) {
            mag = (int) (a * pow2[100 - MIN_EXPONENT] * pow2[49 - MIN_EXPONENT]);
        }
        return x < 0.0f ? (signBit | mag) ^ 0x7FFFFFFF : mag;
    }

    /** Whether the first pass keeps every score's key ahead of the candidates' in {@link #keys} (a host-side choice, read at bind). */
    abstract boolean keepsRowKeys();

    /**
     * Finds the key of the {@code k}-th best of the {@code n} keys read from {@code src} at
     * {@code base} ({@code n > k}; all work-items of the group call it): leaves the key in
     * {@code pick[0]} and how many keys equal to it are kept in {@code pick[1]}, every work-item
     * seeing both. Keys come from {@link #passKey}.
     */
    abstract void narrow(int src, int base, int n, int k, int lid);

    /** Key {@code at} of a selection's first pass over {@code src}: a twin may keep the scores' keys here for its later passes. */
    abstract int firstKey(int src, int at);

    /** Key {@code at} of {@code src} after the first pass. */
    abstract int key(int src, int at);

    /** Key {@code at} of {@code src} in a pass: {@link #firstKey} in the first ({@code first == 1}), {@link #key} after. */
    final int passKey(int first, int src, int at) {
        int k = 0;
        if (first == 1) {
            k = firstKey(src, at);
        } else {
            k = key(src, at);
        }
        return k;
    }

    /** The sum of {@code v} over the work-items before this one (all work-items must call it). */
    final int exclusiveSum(int lid, int v) {
        scan[lid] = v;
        localBarrier();
        for (int d = 1; d < LOCAL; d = d * 2) {
            int t = 0;
            if (lid >= d) {
                t = scan[lid - d];
            }
            localBarrier();
            scan[lid] = scan[lid] + t;
            localBarrier();
        }
        return scan[lid] - v;
    }

    private int positionAt(int src, int base, int firstPosition, int i) {
        return src == FROM_SCORES ? firstPosition + i : candidatePositions[base + i - candidateOffset];
    }

    /** Writes element {@code i} at rank {@code rank} if it is selected; returns the next rank. */
    private int place(int key, int i, int threshold, int remaining, int rank, int lid, int src, int base, int firstPosition,
                      int dst, int out) {
        int next = rank;
        int take = 0;
        if (key > threshold) {
            take = 1;
        } else if (key == threshold) {
            if (pick[2 + lid] < remaining) {
                take = 1;
            }
            pick[2 + lid] = pick[2 + lid] + 1;
        }
        if (take == 1) {
            int position = positionAt(src, base, firstPosition, i);
            if (dst == TO_SELECTED) {
                selected[out + next] = position;
            } else {
                keys[out + next] = key;
                candidatePositions[out + next - candidateOffset] = position;
            }
            next++;
        }
        return next;
    }

    /**
     * The top {@code k} of {@code n} elements (all work-items of the group call it; {@code n > k}):
     * read from the scores at {@code base} (positions from {@code firstPosition}) or from the
     * candidates at {@code base}; written in position order to {@code out} of the result or of the candidates.
     */
    private void select(int src, int base, int firstPosition, int n, int k, int dst, int out, int lid) {
        narrow(src, base, n, k, lid);
        int prefix = pick[0];
        int remaining = pick[1];
        int threshold = prefix ^ signBit;
        int span = (n + LOCAL - 1) / LOCAL;
        int from = min(lid * span, n);
        int to = min(from + span, n);
        localGlobalBarrier(); // keys a twin kept were written strided; now each work-item reads a contiguous span
        int above = 0;
        int ties = 0;
        int j = from;
        for (; j + 3 < to; j += 4) {
            int a = key(src, base + j);
            int b = key(src, base + j + 1);
            int c = key(src, base + j + 2);
            int d = key(src, base + j + 3);
            above += (a > threshold ? 1 : 0) + (b > threshold ? 1 : 0) + (c > threshold ? 1 : 0) + (d > threshold ? 1 : 0);
            ties += (a == threshold ? 1 : 0) + (b == threshold ? 1 : 0) + (c == threshold ? 1 : 0) + (d == threshold ? 1 : 0);
        }
        for (; j < to; j++) {
            int a = key(src, base + j);
            above += a > threshold ? 1 : 0;
            ties += a == threshold ? 1 : 0;
        }
        int aboveBefore = exclusiveSum(lid, above);
        int tiesBefore = exclusiveSum(lid, ties);
        int rank = aboveBefore + min(tiesBefore, remaining);
        pick[2 + lid] = tiesBefore; // this work-item's running tie rank
        j = from;
        for (; j + 3 < to; j += 4) {
            int a = key(src, base + j);
            int b = key(src, base + j + 1);
            int c = key(src, base + j + 2);
            int d = key(src, base + j + 3);
            rank = place(a, j, threshold, remaining, rank, lid, src, base, firstPosition, dst, out);
            rank = place(b, j + 1, threshold, remaining, rank, lid, src, base, firstPosition, dst, out);
            rank = place(c, j + 2, threshold, remaining, rank, lid, src, base, firstPosition, dst, out);
            rank = place(d, j + 3, threshold, remaining, rank, lid, src, base, firstPosition, dst, out);
        }
        for (; j < to; j++) {
            rank = place(key(src, base + j), j, threshold, remaining, rank, lid, src, base, firstPosition, dst, out);
        }
        localBarrier(); // the tie ranks in pick are reused by the next selection
    }

    @Override
    public void run() {
        int rows = shape[0];
        int nk = shape[1];
        int k = shape[2];
        int g = segments(rows, nk, k);
        int row = getGroupId() / g;
        int seg = getGroupId() - row * g;
        int lid = getLocalId();
        int count = counts[row];
        int length = (count + g - 1) / g;
        // What this group does in this pass, decided first: Aparapi mistranslates an if without
        // else nested as the last statement of an if-else branch, so the actions are flat ifs.
        int pass = getPassId();
        int from = min(seg * length, count);
        int n = min(from + length, count) - from;
        int action = MERGE;
        if (pass == 0) {
            action = n <= k ? COPY : SEGMENT;
        }
        if (g == 1) {
            action = pass == 0 ? ROW : NONE;
        }
        if (count <= k) {
            action = pass == 0 ? SHORT : NONE;
        }
        if (seg != 0) {
            action = action == SHORT || action == MERGE ? NONE : action;
        }
        if (action == SHORT) {
            for (int i = lid; i < k; i += LOCAL) {
                selected[row * k + i] = i < count ? i : -1;
            }
        }
        if (action == ROW) {
            select(FROM_SCORES, row * nk, 0, n, k, TO_SELECTED, row * k, lid);
        }
        // a row's candidates lie packed: every segment but the last holds exactly min(k, length)
        int candidates = candidateOffset + row * g * k + seg * min(k, length);
        if (action == COPY) {
            int out = candidates;
            for (int i = lid; i < n; i += LOCAL) {
                keys[out + i] = orderKey(scores[row * nk + from + i]);
                candidatePositions[out + i - candidateOffset] = from + i;
            }
        }
        if (action == SEGMENT) {
            select(FROM_SCORES, row * nk + from, from, n, k, TO_CANDIDATES, candidates, lid);
        }
        if (action == MERGE) {
            int total = 0;
            for (int s = 0; s < g; s++) {
                total += min(k, max(0, min(length, count - s * length)));
            }
            select(FROM_CANDIDATES, candidateOffset + row * g * k, 0, total, k, TO_SELECTED, row * k, lid);
        }
    }
}

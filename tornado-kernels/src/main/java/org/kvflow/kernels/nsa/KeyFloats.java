package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;

/**
 * The key side of {@code count} tokens before it is stored, row-major: each token's latent
 * ({@code C} floats), its rope part with the rotation applied ({@code R}) and its index key as the
 * indexer caches it ({@code I}). What a model computes for the write stage; {@link RowEncoder}
 * turns it into the stored bytes.
 *
 * @param count  how many tokens
 * @param latent {@code count × C} floats
 * @param rope   {@code count × R} floats
 * @param index  {@code count × I} floats
 */
public record KeyFloats(int count, float[] latent, float[] rope, float[] index) {
    /** @throws IllegalArgumentException if {@code count} is negative or a part is not a whole number of rows */
    public KeyFloats {
        Objects.requireNonNull(latent, "latent");
        Objects.requireNonNull(rope, "rope");
        Objects.requireNonNull(index, "index");
        if (count < 0) {
            throw new IllegalArgumentException("key floats of " + count + " tokens");
        }
        rows("latent", latent, count);
        rows("rope", rope, count);
        rows("index", index, count);
    }

    /** {@return token {@code t}'s latent floats} */
    public float[] latentOf(int t) {
        return row(latent, t);
    }

    /** {@return token {@code t}'s rope floats} */
    public float[] ropeOf(int t) {
        return row(rope, t);
    }

    /** {@return token {@code t}'s index key} */
    public float[] indexOf(int t) {
        return row(index, t);
    }

    /**
     * Checks that every part has the widths of a layout.
     *
     * @throws IllegalArgumentException naming the first part whose width differs
     */
    public void requireWidths(int c, int r, int i) {
        width("latent", latent, c);
        width("rope", rope, r);
        width("index", index, i);
    }

    private void width(String part, float[] v, int expected) {
        if (v.length != (long) count * expected) {
            throw new IllegalArgumentException(part + " floats: " + v.length + " for " + count + " tokens of width " + expected);
        }
    }

    private float[] row(float[] v, int t) {
        int w = v.length / count;
        return Arrays.copyOfRange(v, t * w, (t + 1) * w);
    }

    private static void rows(String part, float[] v, int count) {
        if (count == 0 ? v.length != 0 : v.length % count != 0) {
            throw new IllegalArgumentException(part + " floats: " + v.length + " is not a whole number of rows for " + count + " tokens");
        }
    }
}

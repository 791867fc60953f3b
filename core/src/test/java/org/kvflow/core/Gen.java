package org.kvflow.core;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

/**
 * Seeded value generators for property tests, in place of a property-testing library: a test is a
 * {@code @ParameterizedTest(name = "seed {0}")} over {@link #seeds()}, draws its inputs from
 * {@code new Gen(seed)}, and a failure names the seed that reproduces it ({@link SeededProperty} says all that). Ranges are inclusive;
 * one draw in eight lands on an end of the range, where boundary bugs live.
 */
public final class Gen {
    /** Seeds per property: 500, or {@code -Dkvflow.gen.seeds} (the mutation run takes fewer). */
    public static final int SEEDS = Integer.getInteger("kvflow.gen.seeds", 500);

    private final SplittableRandom random;

    public Gen(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** The seeds {@code 1 .. SEEDS}: the same on every run, so a failure reproduces. */
    public static LongStream seeds() {
        return LongStream.rangeClosed(1, SEEDS);
    }

    /** A value in {@code [min, max]}. */
    public int intIn(int min, int max) {
        return Math.toIntExact(longIn(min, max));
    }

    /** A value in {@code [min, max]}. */
    public long longIn(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
        }
        int edge = random.nextInt(16);
        if (edge == 0) {
            return min;
        }
        if (edge == 1) {
            return max;
        }
        return max == Long.MAX_VALUE && min == Long.MIN_VALUE ? random.nextLong() : min + random.nextLong(max - min + 1);
    }

    /** Any long. */
    public long anyLong() {
        return longIn(Long.MIN_VALUE, Long.MAX_VALUE);
    }
}

package org.kvflow.bench;

/**
 * Rounds of a device benchmark run untimed until the JVM has compiled the host code a round
 * goes through (the task graph's checks, launches and waits), so that a timed round measures
 * what a long-running process pays, not the interpreter: {@value #ROUNDS} rounds, the count at
 * which HotSpot's tiered compiler has compiled a method called once a round with its optimising
 * compiler, or {@value #SECONDS} seconds, whichever comes first (rounds of milliseconds reach
 * the time first; their host work is small beside them).
 */
final class HostWarmup {
    /** Rounds that take a method called once a round past HotSpot's default C2 threshold (5,000 invocations). */
    static final int ROUNDS = 6_000;
    /** The most a warm-up may take. */
    static final int SECONDS = 2;

    private HostWarmup() {}

    /** Runs {@code round} until {@link #ROUNDS} rounds or {@link #SECONDS} seconds; returns the rounds run. */
    static int run(Runnable round) {
        long end = System.nanoTime() + SECONDS * 1_000_000_000L;
        int rounds = 0;
        while (rounds < ROUNDS && System.nanoTime() < end) {
            round.run();
            rounds++;
        }
        return rounds;
    }
}

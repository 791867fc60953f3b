package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;

/**
 * Rank processes on the heap memory (no GPU): each starts, answers over its control connection,
 * has its pool filled by staged writes and digests pages; the heap exports no handles, so the pools are
 * not opened in place and the reason says so, and a gather falls back to staged copies over the
 * control connections (counted); a killed rank is lost within the timeout and named
 * by every later use while the others keep serving; a restarted rank serves a fresh pool; a bad
 * request is refused by the rank, which keeps serving; a pool that does not fit fails the start.
 */
class RankProcessesTest {
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 2, 16, 4, 8), KvDtype.FP8_E4M3);
    private static final RankSpec SPEC = new RankSpec(0, "java", LAYOUT, 4, 6);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** Every page of every rank's pool, each from its own stream of {@code seed}'s ({@link #payload}). */
    private static void fill(List<PageStore> pools, long seed) {
        for (int r = 0; r < pools.size(); r++) {
            PageStore pool = pools.get(r);
            for (KvComponent c : KvComponent.values()) {
                for (long p = 0; p < pool.pages(); p++) {
                    pool.writePage(c, p, payload(seed, r, p, c));
                }
            }
        }
    }

    /** Page {@code page} of {@code component}, every layer, of rank {@code rank}'s pool filled from {@code seed}. */
    private static byte[] payload(long seed, int rank, long page, KvComponent component) {
        byte[] payload = new byte[LAYOUT.shape().layers() * Math.toIntExact(component == KvComponent.MLA ? LAYOUT.mlaPageBytes(4) : LAYOUT.indexPageBytes(4))];
        new SplittableRandom(seed * 1_000_003L + rank * 65_537L + page * 2 + component.ordinal()).nextBytes(payload);
        return payload;
    }

    /** The CRC32C of page {@code page} of {@code component} in {@code layer} after a rank's fill from {@code seed}. */
    private static long expected(long seed, int rank, long page, KvComponent component, int layer) {
        PageStore one = PageStore.allocate(new HeapPageMemory(), "oracle", LAYOUT, 4, 1);
        one.writePage(component, 0, payload(seed, rank, page, component));
        CRC32C crc = new CRC32C();
        crc.update(one.readPage(layer, component, 0));
        return crc.getValue();
    }

    @Test
    void ranksServeTheirPoolsAndALostRankIsNamedUntilItIsRestarted() throws Exception {
        try (RankProcesses ranks = RankProcesses.start(SPEC, 3, new HeapPageMemory(), TIMEOUT)) {
            assertThat(ranks.mapped()).isFalse();
            assertThat(ranks.unmappedReason()).isEqualTo("rank 0 exports no handles: the java page memory shares no buffer with other processes");
            fill(ranks.pools(), 7); // staged: over each rank's control line
            long filled = ranks.stagedBytes();
            for (int r = 0; r < 3; r++) {
                assertThat(ranks.digest(r, 1, KvComponent.MLA, 5).block(TIMEOUT)).as("rank %d", r).isEqualTo(expected(7, r, 5, KvComponent.MLA, 1));
                assertThat(ranks.digest(r, 0, KvComponent.INDEX, 2).block(TIMEOUT)).isEqualTo(expected(7, r, 2, KvComponent.INDEX, 0));
            }
            assertThatThrownBy(() -> ranks.digest(2, 9, KvComponent.MLA, 0).block(TIMEOUT)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("rank 2: layer 9 outside [0, 2)");
            // not mapped: the gather falls back to staged copies over the control connections, and counts them
            PageStore view = PageStore.onHeap("view", LAYOUT, 4, 6);
            ranks.gather(view, new int[] {0, 2}, List.of(new long[] {5, 1}, new long[] {0}), List.of(new long[] {0, 1}, new long[] {4}));
            long[][] expected = {{0, 5}, {0, 1}, {2, 0}}; // view page 0: rank 0's page 5; 1: rank 0's page 1; 4: rank 2's page 0
            long[] viewPages = {0, 1, 4};
            for (int i = 0; i < 3; i++) {
                for (KvComponent c : KvComponent.values()) {
                    CRC32C crc = new CRC32C();
                    crc.update(view.readPage(1, c, viewPages[i]));
                    assertThat(crc.getValue()).as("view page %d %s", viewPages[i], c)
                            .isEqualTo(expected(7, (int) expected[i][0], expected[i][1], c, 1));
                }
            }
            assertThat(ranks.stagedBytes() - filled).isEqualTo(3L * LAYOUT.shape().layers() * (LAYOUT.mlaPageBytes(4) + LAYOUT.indexPageBytes(4)));

            List<RankLostException> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
            ranks.onLoss(heard::add);
            long pid = ranks.pid(1);
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (ranks.lost(1).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(ranks.lost(1)).as("rank 1 lost within the timeout").isPresent();
            assertThat(heard).singleElement().satisfies(loss -> {
                assertThat(loss.rank()).isEqualTo(1);
                assertThat(loss.code()).isEqualTo("RANK-LOST");
                assertThat(loss.getMessage()).isEqualTo("rank 1 is lost: " + loss.why());
            });
            assertThatThrownBy(() -> ranks.digest(1, 0, KvComponent.MLA, 0).block(TIMEOUT)).isInstanceOf(RankLostException.class)
                    .hasMessageStartingWith("rank 1 is lost: ").extracting(e -> ((RankLostException) e).rank()).isEqualTo(1);
            assertThatThrownBy(() -> ranks.gather(view, new int[] {0, 1}, List.of(new long[] {0}, new long[] {0}), List.of(new long[] {2}, new long[] {3})))
                    .isInstanceOf(RankLostException.class).hasMessageStartingWith("rank 1 is lost: ");
            assertThat(ranks.digest(0, 1, KvComponent.MLA, 5).block(TIMEOUT)).as("the other ranks keep serving")
                    .isEqualTo(expected(7, 0, 5, KvComponent.MLA, 1));
            assertThat(ranks.lost(0)).isEmpty();

            ranks.restart(1);
            assertThat(ranks.lost(1)).isEmpty();
            assertThat(ranks.pid(1)).isNotEqualTo(pid);
            CRC32C zeros = new CRC32C();
            zeros.update(new byte[(int) LAYOUT.mlaPageBytes(4)]);
            assertThat(ranks.digest(1, 1, KvComponent.MLA, 5).block(TIMEOUT)).as("a fresh pool").isEqualTo(zeros.getValue());
            assertThatThrownBy(() -> ranks.restart(0)).isInstanceOf(IllegalStateException.class).hasMessage("rank 0 is not lost");
        }
    }

    @Test
    void aPoolThatDoesNotFitFailsTheStartNamingTheRank() {
        RankSpec huge = new RankSpec(0, "java", LAYOUT, 4, Integer.MAX_VALUE);
        assertThatThrownBy(() -> RankProcesses.start(huge, 2, new HeapPageMemory(), TIMEOUT)).isInstanceOf(RankStartException.class)
                .hasMessageStartingWith("rank 0 did not start: ");
    }

    @Test
    void aSpecTravelsAsArgumentsAndBadOnesAreNamed() {
        RankSpec spec = new RankSpec(3, "cuda", LAYOUT, 64, 320);
        assertThat(RankSpec.parse(spec.arguments())).isEqualTo(spec);
        assertThat(spec.forRank(5).rank()).isEqualTo(5);
        assertThat(RankSpec.parse(spec.shared().forRank(2).arguments())).isEqualTo(new RankSpec(2, "cuda", LAYOUT, 64, 320, true));
        assertThatThrownBy(() -> RankSpec.parse(List.of("1", "java"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a rank process takes 12 arguments (rank memory model kind layers latent rope index dtype pageSize pages shareable),"
                        + " got 2: [1, java]");
        assertThatThrownBy(() -> RankProcesses.start(spec, 0, new HeapPageMemory(), TIMEOUT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank processes: count 0 must be >= 1");
        List<String> bad = new java.util.ArrayList<>(spec.arguments());
        bad.set(9, "sixty-four");
        assertThatThrownBy(() -> RankSpec.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank process argument 9 is not a number: sixty-four");
        assertThatThrownBy(() -> new RankSpec(-1, "java", LAYOUT, 64, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shareablePoolsThatCannotBeMappedIntoAVirtualViewAreRefused() {
        try (RankProcessPools pools = new RankProcessPools("java", TIMEOUT, true)) {
            assertThatThrownBy(() -> pools.open(new HeapPageMemory(), LAYOUT, 2, 4, 6)).isInstanceOf(RankStartException.class)
                    .hasMessage("rank 0 did not start: its pool cannot be mapped into a virtual view by the java page memory (rank 0 exports no handles:"
                            + " the java page memory shares no buffer with other processes)");
            assertThat(pools.processes()).as("nothing is left running").isEmpty();
            assertThat(pools.virtualView()).isEmpty();
            assertThatThrownBy(() -> pools.restart(0)).isInstanceOf(IllegalStateException.class).hasMessage("the rank processes are not started");
        }
    }

    @Test
    void aLostRankWhoseRestartKeepsFailingIsLeftLostWithTheLastReason() throws Exception {
        String classPath = System.getProperty("java.class.path");
        try (RankProcessPools pools = new RankProcessPools("java", TIMEOUT, false, true)) {
            pools.open(new HeapPageMemory(), LAYOUT, 2, 4, 6);
            RankProcesses ranks = pools.processes().orElseThrow();
            // a rank JVM started from now on finds no classes: every restart fails the same way
            System.setProperty("java.class.path", "/nonexistent/kvflow-classes");
            RankFaults.kill(ranks, 1);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            Duration attempts = RankProcessPools.RESTART_PAUSE.multipliedBy(RankProcessPools.RESTART_ATTEMPTS);
            Thread.sleep(attempts.toMillis() + 2_000); // every attempt made, and paused after
            while (pools.restartFailure(1).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(pools.restartFailure(1)).get().isInstanceOf(RankStartException.class).extracting(Throwable::getMessage)
                    .isEqualTo("rank 1 did not start: its process exited before it listened");
            assertThat(ranks.lost(1)).as("left lost").isPresent();
            assertThat(pools.restartFailure(0)).as("rank 0 was not lost").isEmpty();
            assertThat(ranks.digest(0, 0, KvComponent.MLA, 0).block(TIMEOUT)).as("the other rank keeps serving").isNotNull();
            System.setProperty("java.class.path", classPath);
            pools.restart(1); // by hand once the cause is gone
            assertThat(ranks.lost(1)).isEmpty();
            assertThat(pools.restartFailure(1)).as("a later success is not shadowed by the old failure").isEmpty();
        } finally {
            System.setProperty("java.class.path", classPath);
        }
    }

    @Test
    void aRestartThatTheCoordinatorsCloseOvertakesIsUndoneAndItsProcessEnded() throws Exception {
        RankProcesses ranks = RankProcesses.start(new RankSpec(0, "java", LAYOUT, 4, 6), 2, new HeapPageMemory(), TIMEOUT);
        try {
            RankFaults.kill(ranks, 1);
            java.util.Set<Long> before = children();
            var restart = java.util.concurrent.CompletableFuture.runAsync(() -> ranks.restart(1));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            java.util.Set<Long> started = java.util.Set.of();
            while (started.isEmpty() && System.nanoTime() < deadline) { // the fresh rank's JVM is starting: the restart is under way
                started = new java.util.HashSet<>(children());
                started.removeAll(before);
                Thread.sleep(5);
            }
            assertThat(started).as("the restart started a process").hasSize(1);
            ranks.close();
            assertThatThrownBy(() -> restart.get(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                    .cause().isInstanceOf(IllegalStateException.class).hasMessage("the rank processes closed while rank 1 restarted");
            ProcessHandle fresh = ProcessHandle.of(started.iterator().next()).orElse(null);
            assertThat(fresh == null || !fresh.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS).isAlive())
                    .as("the process the restart started is ended").isTrue();
        } finally {
            ranks.close();
        }
    }

    /** This JVM's live child processes. */
    private static java.util.Set<Long> children() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void aRankThatStopsAnsweringIsLostWhenTheTimeoutPassesAndItsProcessEnded() throws Exception {
        Duration short_ = Duration.ofSeconds(2);
        try (RankProcesses ranks = RankProcesses.start(new RankSpec(0, "java:*", LAYOUT, 4, 6), 2, new HeapPageMemory(), TIMEOUT, short_)) {
            assertThat(ranks.memoryOf(1)).as("java:* is the heap for every rank").isEqualTo("java");
            long pid = ranks.pid(0);
            new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
            assertThatThrownBy(() -> ranks.digest(0, 0, KvComponent.MLA, 0).block(TIMEOUT)).isInstanceOf(RankLostException.class)
                    .hasMessage("rank 0 is lost: no reply to digest within PT2S");
            assertThat(ranks.lost(0)).get().extracting(RankLostException::why).isEqualTo("no reply to digest within PT2S");
            assertThat(ProcessHandle.of(pid).orElseThrow().onExit().get(30, java.util.concurrent.TimeUnit.SECONDS).isAlive()).isFalse();
            assertThat(ranks.digest(1, 0, KvComponent.MLA, 0).block(TIMEOUT)).as("the other rank keeps serving").isNotNull();
            ranks.close();
            assertThatThrownBy(() -> ranks.restart(0)).as("nothing starts once the coordinator closed").isInstanceOf(IllegalStateException.class)
                    .hasMessage("the rank processes are closed");
        }
    }

    @Test
    void stagedCopiesCheckEveryRangeBeforeAskingTheRankAndTheRankRefusesWhatItCannotServe() {
        try (RankProcesses ranks = RankProcesses.start(SPEC, 1, new HeapPageMemory(), TIMEOUT)) {
            PageStore pool = ranks.pools().getFirst();
            assertThat(pool.residency()).isEqualTo(org.kvflow.pages.Residency.REMOTE);
            byte[] row = new byte[LAYOUT.mlaRowBytes()];
            java.util.Arrays.fill(row, (byte) 7);
            pool.writeMlaRows(1, 9, row, 0, 1);
            assertThat(pool.readBytes(1, KvComponent.MLA, 9L * row.length, row.length)).isEqualTo(row);
            assertThatThrownBy(() -> pool.readBytes(0, KvComponent.MLA, pool.pageBytes(KvComponent.MLA) * 6L - 1, 2))
                    .isInstanceOf(org.kvflow.pages.ByteRangeException.class);
            assertThatThrownBy(() -> pool.hostView(0, KvComponent.MLA, 0)).isInstanceOf(org.kvflow.pages.NotHostMemoryException.class)
                    .hasMessage("rank 0 (process " + ranks.pid(0) + "), staged mla layer 0 lies in another process: only heap and pinned host buffers"
                            + " can be written in place from the host");
            assertThat(ranks.stagedBytes()).isEqualTo(2L * row.length);
            StagedRankMemory staged = new StagedRankMemory((r, request, bytes) -> { throw new AssertionError("nothing is sent"); });
            assertThatThrownBy(() -> staged.allocate("z", 1, 4)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessage("the staged memory allocates nothing: its buffers are rank processes' pools");
            assertThatThrownBy(() -> staged.importBuffer("x", new byte[] {1, 2}, 1, 4)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("x: not a staged rank handle (2 bytes)");
            byte[] bad = java.nio.ByteBuffer.allocate(13).put(new byte[] {'K', 'V', 'S', '1'}).putInt(0).putInt(0).put((byte) 7).array();
            assertThatThrownBy(() -> staged.importBuffer("y", bad, 1, 4)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("y: a staged rank handle of rank 0, layer 0, component 7");
        }
    }
}

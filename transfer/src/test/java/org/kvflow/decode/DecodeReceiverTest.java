package org.kvflow.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DecodeReceiverTest {
    /** A layout, so that the receiver has a store and runs its page writers. */
    private static final org.kvflow.core.model.KvLayout TOY = new org.kvflow.core.model.KvLayout(
            new org.kvflow.core.model.ModelShape("toy", org.kvflow.core.model.ModelKind.TOY_MLA, 1, 40, 8, 24),
            org.kvflow.core.model.KvDtype.FP8_E4M3);

    @Test
    void readyOnlyAfterEveryRankCompletesAndEveryPageIsWritten() {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, null);
        long[] d = receiver.open("a", 3, 2);
        assertThat(d).containsExactly(1, 2, 3);
        receiver.accept("a", 0, pages(1, 2), null);
        receiver.complete("a", 0);
        assertThat(receiver.isReady("a")).isFalse();
        receiver.complete("a", 1);
        assertThat(receiver.isReady("a")).as("position 2 was never written").isFalse();
        receiver.accept("a", 1, pages(3, 1), null);
        assertThat(receiver.isReady("a")).isTrue();
        assertThat(receiver.writtenPages("a")).isEqualTo(3);
    }

    @Test
    void countsAndRanksFromTheWireAreBoundedBeforeAnythingIsKept() {
        DecodeReceiver receiver = new DecodeReceiver(8, 4, null);
        assertThatThrownBy(() -> receiver.open("a", 0x7FFFFFFF, 1)).isInstanceOf(TransferRejectedException.class)
                .hasMessage("transfer of request a rejected: 2147483647 pages outside [1, 7]")
                .satisfies(e -> refused(e, "PD-REJECTED", "a", "2147483647 pages outside [1, 7]"));
        assertThatThrownBy(() -> receiver.open("a", 1, 0)).hasMessage("transfer of request a rejected: 0 senders; at least 1");
        receiver.open("a", 1, 2);
        assertThatThrownBy(() -> receiver.complete("a", 0x7FFFFFFF))
                .hasMessage("transfer of request a rejected: completion from rank 2147483647, outside [0, 2)");
        assertThatThrownBy(() -> receiver.complete("a", -1)).hasMessage("transfer of request a rejected: completion from rank -1, outside [0, 2)");
        assertThat(receiver.pageCount("a")).isEqualTo(1);
        assertThat(receiver.pageCount("ghost")).isZero();
    }

    @Test
    void pagesForUnknownRequestsOrPositionsAreRejectedCountedAndNeverWritten() {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, null);
        receiver.open("a", 2, 2);
        assertThatThrownBy(() -> receiver.accept("ghost", 0, pages(1, 1), null))
                .isInstanceOf(TransferRejectedException.class)
                .hasMessage("transfer of request ghost rejected: unknown request (rank 0, 1 pages)");
        assertThatThrownBy(() -> receiver.accept("a", 0, pages(2, 2), null))
                .hasMessage("transfer of request a rejected: decode page 3 is not one of its pages (rank 0)");
        assertThat(receiver.writtenPages("a")).isZero();
        receiver.accept("a", 0, pages(1, 1), null);
        assertThatThrownBy(() -> receiver.accept("a", 1, pages(1, 1), null))
                .hasMessage("transfer of request a rejected: position 0 written twice (rank 1)");
        assertThatThrownBy(() -> receiver.accept("a", 2, pages(2, 1), null))
                .hasMessage("transfer of request a rejected: pages from rank 2, outside [0, 2)");
        assertThat(receiver.rejectedPages()).isEqualTo(5);
    }

    @Test
    void completionRulesAndRelease() {
        DecodeReceiver receiver = new DecodeReceiver(8, 4, null);
        receiver.open("a", 2, 2);
        receiver.complete("a", 1);
        assertThatThrownBy(() -> receiver.complete("a", 1)).hasMessage("transfer of request a rejected: rank 1 completed twice");
        assertThatThrownBy(() -> receiver.complete("b", 0)).isInstanceOf(TransferRejectedException.class);
        assertThatThrownBy(() -> receiver.open("a", 1, 1)).isInstanceOf(TransferRejectedException.class).hasMessage(
                "transfer of request a rejected: a request of that id is open already (ids are unique among open requests, across clients)");
        receiver.open("big", 5, 1);
        assertThatThrownBy(() -> receiver.open("more", 1, 1)).isInstanceOf(DecodePoolFullException.class)
                .hasMessage("request more needs 1 decode pages; the pool has 0 free")
                .satisfies(e -> refused(e, "PD-POOL-FULL", "more", "1 decode pages needed; the pool has 0 free"));
        assertThat(receiver.openSessions()).as("the refused request holds nothing").isEqualTo(2);
        receiver.release("big");
        assertThat(receiver.pagesInUse()).isEqualTo(2);
        receiver.release("a");
        assertThat(receiver.pagesInUse()).isZero();
        assertThat(receiver.openSessions()).isZero();
    }

    @Test
    void aCountAtThePoolsCapacityOpensAndARankEqualToTheSendersIsRefused() {
        DecodeReceiver receiver = new DecodeReceiver(8, 4, null); // page 0 is padding: 7 usable
        assertThat(receiver.capacityPages()).isEqualTo(7);
        assertThat(receiver.open("all", 7, 2)).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(receiver.pages("all")).containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThatThrownBy(() -> receiver.complete("all", 2)).hasMessage("transfer of request all rejected: completion from rank 2, outside [0, 2)");
        assertThatThrownBy(() -> receiver.accept("all", 2, pages(1, 1), null))
                .hasMessage("transfer of request all rejected: pages from rank 2, outside [0, 2)");
        assertThatThrownBy(() -> receiver.pages("ghost")).isInstanceOf(TransferRejectedException.class)
                .hasMessage("transfer of request ghost rejected: unknown request");
    }

    @Test
    void sessionsWaitingForARanksCompletionAreCountedUntilItComes() {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, null);
        receiver.open("a", 1, 2);
        receiver.open("b", 1, 1);
        assertThat(receiver.incompleteSessions()).isEqualTo(2);
        receiver.complete("a", 0);
        receiver.complete("b", 0);
        assertThat(receiver.incompleteSessions()).as("a waits for rank 1; b is complete").isEqualTo(1);
        receiver.complete("a", 1);
        assertThat(receiver.incompleteSessions()).isZero();
        assertThat(receiver.readySessions()).as("complete, but no page written").isZero();
    }

    /** A writer that fails (a copy refused, a device error) leaves its positions unwritten and unclaimed: the rank may send them again. */
    @Test
    void aFailedWriteLeavesItsPositionsFreeToBeWrittenAgain() {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, TOY);
        long[] d = receiver.open("a", 2, 1);
        assertThatThrownBy(() -> receiver.accept("a", 0, d, (store, pages) -> {
            throw new IllegalStateException("copy failed");
        })).isInstanceOf(IllegalStateException.class).hasMessage("copy failed");
        assertThat(receiver.writtenPages("a")).isZero();
        assertThat(receiver.pagesInUse()).as("the request still holds its pages").isEqualTo(2);
        receiver.accept("a", 0, d, (store, pages) -> { });
        receiver.complete("a", 0);
        assertThat(receiver.isReady("a")).isTrue();

        long[] b = receiver.open("b", 3, 1);
        assertThatThrownBy(() -> receiver.accept("b", 0, b, (store, pages) -> {
            receiver.release("b"); // decode gave up on it while the write ran
            assertThat(receiver.pagesInUse()).as("pages under a write stay allocated").isEqualTo(5);
            throw new IllegalStateException("copy failed");
        })).hasMessage("copy failed");
        assertThat(receiver.pagesInUse()).as("a released request's pages are back once its failed write ended").isEqualTo(2);
    }

    /** Readiness that comes with the last page, after every rank completed, starts the request's ttl there (and a clock at 0 is a time). */
    @Test
    void aRequestMadeReadyByItsLastPageAgesFromThatPage() {
        long[] now = {0};
        DecodeReceiver r = new DecodeReceiver(16, 4, null, () -> now[0]);
        long[] d = r.open("late", 2, 1);
        r.complete("late", 0);
        r.accept("late", 0, new long[] {d[0]}, null);
        assertThat(r.isReady("late")).isFalse();
        r.accept("late", 0, new long[] {d[1]}, null); // ready at t = 0
        assertThat(r.isReady("late")).isTrue();
        now[0] = 499;
        assertThat(r.expireReady(java.time.Duration.ofNanos(500))).isEmpty();
        now[0] = 500;
        assertThat(r.expireReady(java.time.Duration.ofNanos(500))).containsExactly("late");
        assertThat(r.pagesInUse()).isZero();
    }

    /**
     * The digest is CRC32C over, position by position and layer by layer, the valid MLA rows, the
     * valid index codes and their scales, and nothing else: the same KV under other page ids gives
     * the same digest, a byte past {@code seqLen} changes nothing, and one valid byte changes it.
     */
    @Test
    void aDigestSumsTheValidRowsOfEveryLayerInPositionOrderWhateverThePageIds() {
        org.kvflow.core.model.KvLayout layout = new org.kvflow.core.model.KvLayout(new org.kvflow.core.model.ModelShape("toy",
                org.kvflow.core.model.ModelKind.TOY_MLA, 2, 16, 4, 200), org.kvflow.core.model.KvDtype.FP8_E4M3); // index keys of two scale tiles
        int ps = 4;
        long seqLen = 6; // two pages: four rows, then two
        DecodeReceiver first = new DecodeReceiver(16, ps, layout);
        DecodeReceiver second = new DecodeReceiver(16, ps, layout);
        second.open("before", 3, 1); // the same request lands on other page ids there
        long[] d1 = first.open("a", 2, 1);
        long[] d2 = second.open("a", 2, 1);
        assertThat(d2).doesNotContain(d1);
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        byte[][][] payload = new byte[2][2][]; // [position][component]
        for (int pos = 0; pos < 2; pos++) {
            for (org.kvflow.pages.KvComponent c : org.kvflow.pages.KvComponent.values()) {
                byte[] bytes = new byte[2 * first.store().pageBytes(c)];
                random.nextBytes(bytes);
                payload[pos][c.ordinal()] = bytes;
                first.store().writePage(c, d1[pos], bytes);
                second.store().writePage(c, d2[pos], bytes);
            }
        }
        java.util.zip.CRC32C expected = new java.util.zip.CRC32C();
        int rowBytes = layout.mlaRowBytes();
        int dim = layout.shape().indexDim();
        int scales = org.kvflow.core.model.KvLayout.SCALE_BYTES * org.kvflow.core.model.KvLayout.tiles(dim);
        assertThat(scales).isEqualTo(8);
        int mla = first.store().mlaPageBytes();
        int index = first.store().indexPageBytes();
        for (int pos = 0; pos < 2; pos++) {
            int valid = pos == 0 ? 4 : 2;
            for (int l = 0; l < 2; l++) {
                expected.update(payload[pos][org.kvflow.pages.KvComponent.MLA.ordinal()], l * mla, valid * rowBytes);
                expected.update(payload[pos][org.kvflow.pages.KvComponent.INDEX.ordinal()], l * index, valid * dim);
                expected.update(payload[pos][org.kvflow.pages.KvComponent.INDEX.ordinal()], l * index + ps * dim, valid * scales);
            }
        }
        assertThat(first.digest("a", seqLen)).isEqualTo(expected.getValue()).isEqualTo(second.digest("a", seqLen));

        byte[] lastScales = first.store().readPage(1, org.kvflow.pages.KvComponent.INDEX, d1[1]);
        lastScales[ps * dim + 2 * scales] ^= 1; // the scales of row 6, past seqLen
        first.store().writePage(1, org.kvflow.pages.KvComponent.INDEX, d1[1], java.nio.ByteBuffer.wrap(lastScales));
        assertThat(first.digest("a", seqLen)).as("a byte past seqLen").isEqualTo(expected.getValue());
        lastScales[ps * dim + 2 * scales - 1] ^= 1; // the last scale byte of row 5, the last valid row
        first.store().writePage(1, org.kvflow.pages.KvComponent.INDEX, d1[1], java.nio.ByteBuffer.wrap(lastScales));
        assertThat(first.digest("a", seqLen)).as("a valid byte of layer 1").isNotEqualTo(expected.getValue());
        assertThatThrownBy(() -> first.digest("ghost", 1)).isInstanceOf(TransferRejectedException.class)
                .hasMessage("transfer of request ghost rejected: unknown request");
    }

    /** What a refusal sent back to its requester carries: the code, the request once, and the reason without it. */
    private static void refused(Throwable e, String code, String requestId, String reason) {
        DecodeRefusal refusal = (DecodeRefusal) e;
        assertThat(refusal.code()).isEqualTo(code);
        assertThat(refusal.requestId()).isEqualTo(requestId);
        assertThat(refusal.reason()).isEqualTo(reason);
    }

    /** Decode pages {@code first .. first + count - 1}. */
    private static long[] pages(long first, int count) {
        return java.util.stream.LongStream.range(first, first + count).toArray();
    }

    /** A pool in a memory of the caller's: the pages a request receives are written there, and read back from there. */
    @Test
    void aPoolInTheCallersMemoryReceivesItsPagesThere() {
        try (org.kvflow.pages.CrossingMemory memory = new org.kvflow.pages.CrossingMemory();
             org.kvflow.pages.PageStore prefill = org.kvflow.pages.PageStore.onHeap("rank 0", TOY, 4, 8)) {
            byte[] page = new byte[TOY.shape().layers() * prefill.mlaPageBytes()];
            java.util.Arrays.fill(page, (byte) 7);
            prefill.writePage(org.kvflow.pages.KvComponent.MLA, 3, page);
            DecodeReceiver receiver = new DecodeReceiver(16, 4, TOY, memory);
            long[] d = receiver.open("a", 1, 1);
            receiver.accept("a", 0, new long[] {3}, d, prefill);
            long pageBytes = (long) TOY.shape().layers() * (prefill.mlaPageBytes() + prefill.indexPageBytes());
            assertThat(receiver.store().memory()).isSameAs(memory);
            assertThat(memory.hostTraffic().total()).as("one page written into the caller's memory").isEqualTo(pageBytes);
            assertThat(receiver.store().readPage(org.kvflow.pages.KvComponent.MLA, d[0])).isEqualTo(page);
        }
    }

    /** Ranks write side by side: a position being written by one is refused to another, and a release mid-write waits for the write. */
    @Test
    @org.junit.jupiter.api.Timeout(30) // a write under the receiver's lock would block the other rank here for good
    void writesRunOutsideTheLockYetNoPositionIsWrittenTwiceAndNoPageIsFreedUnderAWriter() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, TOY);
        long[] d = receiver.open("a", 4, 2);
        java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
        Thread rank0 = Thread.ofPlatform().start(() -> receiver.accept("a", 0, new long[] {d[0], d[1]}, (store, pages) -> {
            writing.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertThat(writing.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("rank 0's write started").isTrue();
        receiver.accept("a", 1, new long[] {d[2], d[3]}, (store, pages) -> { }); // the other rank is not held up by the lock
        assertThatThrownBy(() -> receiver.accept("a", 1, new long[] {d[1]}, (store, pages) -> { }))
                .isInstanceOf(TransferRejectedException.class).hasMessage("transfer of request a rejected: position 1 written twice (rank 1)");
        receiver.release("a");
        assertThat(receiver.pagesInUse()).as("pages under a write stay allocated").isEqualTo(4);
        finish.countDown();
        rank0.join(10_000);
        assertThat(receiver.pagesInUse()).as("freed when the last write ended").isZero();
    }

    /** Bounded stress: eight ranks writing their own positions at once always end with every position written exactly once. */
    @Test
    void concurrentRanksWriteEveryPositionOnce() throws Exception {
        for (int round = 0; round < 50; round++) {
            DecodeReceiver receiver = new DecodeReceiver(128, 4, TOY);
            long[] d = receiver.open("r" + round, 64, 8);
            java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
            java.util.List<Thread> ranks = new java.util.ArrayList<>();
            for (int r = 0; r < 8; r++) {
                long[] mine = java.util.Arrays.copyOfRange(d, r * 8, r * 8 + 8);
                int rank = r;
                String id = "r" + round;
                ranks.add(Thread.ofPlatform().start(() -> {
                    for (long page : mine) {
                        receiver.accept(id, rank, new long[] {page}, (store, pages) -> writes.incrementAndGet());
                    }
                    receiver.complete(id, rank);
                }));
            }
            for (Thread t : ranks) {
                t.join(10_000);
            }
            assertThat(writes.get()).isEqualTo(64);
            assertThat(receiver.isReady("r" + round)).isTrue();
        }
    }

    @Test
    void aReadyRequestNobodyReleasesIsFreedAfterItsTtlAndCounted() {
        long[] now = {0};
        DecodeReceiver r = new DecodeReceiver(16, 4, null, () -> now[0]);
        long[] ready = r.open("ready", 2, 1);
        r.open("receiving", 3, 1);
        r.accept("ready", 0, ready, null);
        now[0] = 100;
        r.complete("ready", 0); // ready from t = 100
        assertThat(r.readySessions()).isEqualTo(1);
        assertThat(r.pagesInUse()).isEqualTo(5);
        now[0] = 1_099;
        assertThat(r.expireReady(java.time.Duration.ofNanos(1_000))).as("ready for 999 ns: kept").isEmpty();
        now[0] = 1_100;
        assertThat(r.expireReady(java.time.Duration.ofNanos(1_000))).containsExactly("ready");
        assertThat(r.expiredSessions()).isEqualTo(1);
        assertThat(r.readySessions()).isZero();
        assertThat(r.pagesInUse()).as("the expired request's pages are back; the one still receiving keeps its own").isEqualTo(3);
        now[0] = 1_000_000;
        assertThat(r.expireReady(java.time.Duration.ofNanos(1_000))).as("a request still being received never expires").isEmpty();
        assertThat(r.openSessions()).isEqualTo(1);
    }

    @Test
    void aDigestSumsOutsideTheReceiversLock() throws Exception {
        org.kvflow.core.model.KvLayout layout = new org.kvflow.core.model.KvLayout(new org.kvflow.core.model.ModelShape("toy",
                org.kvflow.core.model.ModelKind.TOY_MLA, 1, 16, 4, 8), org.kvflow.core.model.KvDtype.FP8_E4M3);
        DecodeReceiver r = new DecodeReceiver(16, 4, layout);
        r.open("big", 4, 1);
        java.util.concurrent.CountDownLatch summing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.zip.Checksum stalled = new java.util.zip.Checksum() { // a checksum that holds the digest mid-way
            private final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();

            @Override
            public void update(int b) {
                crc.update(b);
            }

            @Override
            public void update(byte[] b, int off, int len) {
                summing.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                crc.update(b, off, len);
            }

            @Override
            public void update(java.nio.ByteBuffer buffer) {
                update(new byte[0], 0, 0);
                crc.update(buffer);
            }

            @Override
            public long getValue() {
                return crc.getValue();
            }

            @Override
            public void reset() {
                crc.reset();
            }
        };
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2); // not the common pool: one thread on 2 cores
        java.util.concurrent.CompletableFuture<Long> digest = java.util.concurrent.CompletableFuture.supplyAsync(() -> r.digest("big", 16, stalled), threads);
        assertThat(summing.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("the digest is summing").isTrue();
        java.util.concurrent.CompletableFuture<long[]> other = java.util.concurrent.CompletableFuture.supplyAsync(() -> r.open("other", 2, 1), threads);
        assertThat(other.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("another request opens while the digest sums").hasSize(2);
        release.countDown();
        assertThat(digest.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(r.digest("big", 16));
        threads.shutdownNow();
    }
}

package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopies;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageOutOfRangeException;

/**
 * On the GPU machine ({@code -Dgroups=cuda} or the console launcher with {@code --include-tag cuda}):
 * every CUDA copy is bit-exact with the Java reference copier, bad input is refused before any
 * launch, and device memory comes back on every path.
 */
@Tag("cuda")
class CudaPageMemoryGpuTest {
    private static CudaPageMemory cuda;
    private static final HeapPageMemory JAVA = new HeapPageMemory();

    @BeforeAll
    static void open() {
        cuda = new CudaPageMemory(0);
        System.out.println("CUDA device: " + cuda.deviceName());
    }

    @AfterAll
    static void close() {
        cuda.close();
    }

    private static byte[] random(long seed, int bytes) {
        byte[] b = new byte[bytes];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static long[] permutation(long seed, int n, int of) {
        long[] all = new long[of];
        for (int i = 0; i < of; i++) {
            all[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = of - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            long t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return java.util.Arrays.copyOf(all, n);
    }

    @ParameterizedTest(name = "{0} pages of {1} B, {2} pairs")
    @CsvSource({"1, 41984, 1", "64, 41984, 64", "257, 8448, 200", "40, 73728, 17", "33, 100, 30", "9, 1, 9"})
    void gatherScatterAndDirectCopiesEqualTheJavaReference(int pages, int pageBytes, int pairs) {
        byte[] content = random(pages * 31L + pageBytes, pages * pageBytes);
        long[] srcPages = permutation(7, pairs, pages);
        long[] dstPages = permutation(8, pairs, pages);
        PageBuffer hs = JAVA.allocate("ref-src", pages, pageBytes);
        PageBuffer hd = JAVA.allocate("ref-dst", pages, pageBytes);
        PageBuffer ds = cuda.allocate("src", pages, pageBytes);
        PageBuffer dd = cuda.allocate("dst", pages, pageBytes);
        JAVA.writePages(hs, 0, content, 0, pages);
        cuda.writePages(ds, 0, content, 0, pages);
        JAVA.copyPages(hs, srcPages, hd, dstPages);
        cuda.copyPages(ds, srcPages, dd, dstPages);
        assertThat(readAll(cuda, dd)).isEqualTo(readAll(JAVA, hd));

        PageBuffer view = cuda.allocate("view", pairs, pageBytes);
        PageBuffer refView = JAVA.allocate("ref-view", pairs, pageBytes);
        PageCopies.gather(cuda, ds, srcPages, view);
        PageCopies.gather(JAVA, hs, srcPages, refView);
        assertThat(readAll(cuda, view)).isEqualTo(readAll(JAVA, refView));
        PageCopies.scatter(cuda, view, dd, dstPages);
        PageCopies.scatter(JAVA, refView, hd, dstPages);
        assertThat(readAll(cuda, dd)).isEqualTo(readAll(JAVA, hd));
        List.of(ds, dd, view).forEach(cuda::free);
    }

    @Test
    void pageChecksumsOnTheDeviceEqualJavasCrc32cForEveryPageSize() {
        // multiples of 4 take the coalesced path (fewer words than lanes, a step and a word, the unrolled steps and what follows them);
        // other sizes, and so pages after the first at unaligned addresses, go byte by byte
        int[] sizes = {4, 124, 128, 132, 1_024, 1_028, 4 * 257, 4 * 300, 8_448, 41_984, 1, 5, 31, 33, 1_001};
        List<PageBuffer> buffers = new java.util.ArrayList<>();
        List<byte[]> bytes = new java.util.ArrayList<>();
        for (int size : sizes) {
            PageBuffer b = cuda.allocate("pages of " + size, 6, size);
            byte[] content = random(size, 6 * size);
            cuda.write(b, 0, content, 0, content.length);
            buffers.add(b);
            bytes.add(content);
        }
        long[] pages = {5, 0, 3, 1};
        for (int b = 0; b < sizes.length; b++) {
            int[] alone = cuda.crc32c(List.of(buffers.get(b)), pages);
            for (int k = 0; k < pages.length; k++) {
                java.util.zip.CRC32C expected = new java.util.zip.CRC32C();
                expected.update(bytes.get(b), (int) pages[k] * sizes[b], sizes[b]);
                assertThat(alone[k]).as("page %d of %d bytes", pages[k], sizes[b]).isEqualTo((int) expected.getValue());
            }
        }
        int[] joined = cuda.crc32c(buffers, pages);
        for (int k = 0; k < pages.length; k++) {
            java.util.zip.CRC32C expected = new java.util.zip.CRC32C(); // page k of every buffer in turn
            for (int b = 0; b < sizes.length; b++) {
                expected.update(bytes.get(b), (int) pages[k] * sizes[b], sizes[b]);
            }
            assertThat(joined[k]).as("page %d over the %d buffers", pages[k], sizes.length).isEqualTo((int) expected.getValue());
        }
        assertThat(cuda.crc32c(buffers, new long[0])).isEmpty();
        assertThatThrownBy(() -> cuda.crc32c(buffers, new long[] {0, 6}))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("pages of 4: entry 1 names page 6, outside [0, 6)");
        PageBuffer heap = JAVA.allocate("heap", 1, 64);
        assertThatThrownBy(() -> cuda.crc32c(List.of(heap), new long[] {0}))
                .isInstanceOf(org.kvflow.pages.ForeignBufferException.class).hasMessage("heap is not a live buffer of the cuda page memory");
        buffers.forEach(cuda::free);
    }

    @Test
    void aCheckedCopyMovesEveryPageAndGivesTheChecksumsOfWhatItMoved() {
        PageBuffer mla = cuda.allocate("mla", 12, 41_984);
        PageBuffer index = cuda.allocate("index", 12, 8_448);
        PageBuffer odd = cuda.allocate("odd", 12, 1_001); // not a multiple of 4: byte by byte
        PageBuffer mlaTo = cuda.allocate("mla-to", 6, 41_984);
        PageBuffer indexTo = cuda.allocate("index-to", 6, 8_448);
        PageBuffer oddTo = cuda.allocate("odd-to", 6, 1_001);
        byte[][] bytes = {random(41, 12 * 41_984), random(42, 12 * 8_448), random(43, 12 * 1_001)};
        cuda.writePages(mla, 0, bytes[0], 0, 12);
        cuda.writePages(index, 0, bytes[1], 0, 12);
        cuda.writePages(odd, 0, bytes[2], 0, 12);
        long[] src = {11, 0, 5, 7};
        long[] dst = {3, 0, 5, 1};
        List<PageCopy> batch = List.of(new PageCopy(mla, src, mlaTo, dst), new PageCopy(index, src, indexTo, dst), new PageCopy(odd, src, oddTo, dst));
        int[] crcs = cuda.copyPagesChecked(batch);
        for (int k = 0; k < src.length; k++) {
            java.util.zip.CRC32C expected = new java.util.zip.CRC32C(); // page src[k] of every source in turn
            for (int i = 0; i < batch.size(); i++) {
                int size = batch.get(i).src().pageBytes();
                expected.update(bytes[i], (int) src[k] * size, size);
                byte[] landed = new byte[size];
                cuda.read(batch.get(i).dst(), dst[k] * size, size, landed, 0);
                assertThat(landed).as("%s page %d landed", batch.get(i).src().label(), src[k])
                        .isEqualTo(java.util.Arrays.copyOfRange(bytes[i], (int) src[k] * size, (int) (src[k] + 1) * size));
            }
            assertThat(crcs[k]).as("page %d over the batch", src[k]).isEqualTo((int) expected.getValue());
        }
        byte[] before = readAll(cuda, mlaTo);
        assertThatThrownBy(() -> cuda.copyPagesChecked(List.of(new PageCopy(mla, new long[] {0, 1}, mlaTo, new long[] {2, 1}),
                new PageCopy(index, new long[] {0, 12}, indexTo, new long[] {0, 1}))))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("index: entry 1 names page 12, outside [0, 12)");
        assertThat(readAll(cuda, mlaTo)).as("nothing moved").isEqualTo(before);
        assertThatThrownBy(() -> cuda.copyPagesChecked(List.of(new PageCopy(mla, new long[] {0, 1}, mlaTo, new long[] {2, 1}),
                new PageCopy(index, new long[] {0, 2}, indexTo, new long[] {2, 1}))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("copy 1 of a checked batch (index to index-to) moves other pages than copy 0: a checked batch copies one run of pages in every buffer");
        assertThat(readAll(cuda, mlaTo)).as("two runs in one batch: nothing moved").isEqualTo(before);
        PageBuffer heap = JAVA.allocate("heap", 3, 1_001);
        assertThatThrownBy(() -> cuda.copyPagesChecked(List.of(new PageCopy(mla, new long[] {0, 1}, mlaTo, new long[] {2, 1}),
                new PageCopy(odd, new long[] {0, 1}, heap, new long[] {2, 1}))))
                .isInstanceOf(org.kvflow.pages.ForeignBufferException.class).hasMessage("heap is not a live buffer of the cuda page memory");
        assertThat(readAll(cuda, mlaTo)).as("a foreign buffer later in the batch: nothing moved").isEqualTo(before);
        List.of(mla, index, odd, mlaTo, indexTo, oddTo).forEach(cuda::free);
    }

    @Test
    void mlaAndIndexComponentsMoveInOneLaunch() {
        int pages = 50;
        PageBuffer mla = cuda.allocate("mla", pages, 41984);
        PageBuffer index = cuda.allocate("index", pages, 8448);
        PageBuffer mlaView = cuda.allocate("mla-view", 10, 41984);
        PageBuffer indexView = cuda.allocate("index-view", 10, 8448);
        byte[] m = random(1, pages * 41984);
        byte[] x = random(2, pages * 8448);
        cuda.writePages(mla, 0, m, 0, pages);
        cuda.writePages(index, 0, x, 0, pages);
        long[] src = permutation(3, 10, pages);
        long[] dst = permutation(4, 10, 10);
        cuda.copyComponents(List.of(mla, index), src, List.of(mlaView, indexView), dst);
        for (int i = 0; i < 10; i++) {
            byte[] page = new byte[41984];
            cuda.readPages(mlaView, dst[i], 1, page, 0);
            assertThat(page).isEqualTo(java.util.Arrays.copyOfRange(m, (int) src[i] * 41984, (int) (src[i] + 1) * 41984));
            byte[] ipage = new byte[8448];
            cuda.readPages(indexView, dst[i], 1, ipage, 0);
            assertThat(ipage).isEqualTo(java.util.Arrays.copyOfRange(x, (int) src[i] * 8448, (int) (src[i] + 1) * 8448));
        }
        List.of(mla, index, mlaView, indexView).forEach(cuda::free);
    }

    @Test
    void moreComponentsThanOneLaunchTakesAreRefused() {
        List<PageBuffer> five = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(cuda.allocate("c" + i, 2, 16));
        }
        assertThatThrownBy(() -> cuda.copyComponents(five, new long[] {0}, five, new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("5 components in one launch; at most 4");
        five.forEach(cuda::free);
    }

    @Test
    void hiCacheBackupAndLoadThroughPinnedHostMemory() {
        int ps = 64;
        int pageBytes = 41984;
        PageBuffer device = cuda.allocate("device pool", 32, pageBytes);
        PageBuffer host = cuda.allocateHost("host pool", 16, pageBytes);
        PageBuffer reloaded = cuda.allocate("reloaded", 32, pageBytes);
        byte[] content = random(5, 32 * pageBytes);
        cuda.writePages(device, 0, content, 0, 32);
        // device pages 3,4,5,20 -> host pages 0..3 (token-indexed, validated), then back to 10..13
        long[] deviceTokens = tokens(ps, 3, 4, 5, 20);
        long[] hostTokens = tokens(ps, 0, 1, 2, 3);
        PageCopies.copyTokens(cuda, device, deviceTokens, host, hostTokens, ps, "hicache backup");
        PageCopies.copyTokens(cuda, host, hostTokens, reloaded, tokens(ps, 10, 11, 12, 13), ps, "hicache load");
        byte[] page = new byte[pageBytes];
        cuda.readPages(reloaded, 13, 1, page, 0);
        assertThat(page).isEqualTo(java.util.Arrays.copyOfRange(content, 20 * pageBytes, 21 * pageBytes));
        List.of(device, host, reloaded).forEach(cuda::free);
    }

    @Test
    void badInputIsRefusedBeforeAnyLaunchAndLeavesTheDestinationUntouched() {
        PageBuffer src = cuda.allocate("src", 4, 8448);
        PageBuffer dst = cuda.allocate("dst", 4, 8448);
        cuda.writePages(src, 0, random(6, 4 * 8448), 0, 4);
        assertThatThrownBy(() -> cuda.copyPages(src, new long[] {0, 4}, dst, new long[] {0, 1}))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("src: entry 1 names page 4, outside [0, 4)");
        long[] misaligned = new long[64];
        for (int i = 0; i < 64; i++) {
            misaligned[i] = 65 + i;
        }
        assertThatThrownBy(() -> PageCopies.copyTokens(cuda, src, misaligned, dst, tokens(64, 2), 64, "hicache load req 17"))
                .isInstanceOfSatisfying(PageGroupValidationException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("hicache load req 17 (source): MISALIGNED group 0 offset 0: 65 is not a multiple of page size 64"));
        assertThat(readAll(cuda, dst)).containsOnly(0);
        List.of(src, dst).forEach(cuda::free);
    }

    /**
     * Eight threads check pages at once, and copy them checked, while another buffer is freed: the
     * calls run on lanes of their own (more than one made, no more than {@link CudaPageMemory#CHECK_LANES}),
     * every checksum equals Java's, and closing the memory gives the lanes' device memory back.
     */
    @Test
    void checksumCallsFromManyThreadsRunSideBySideAndStayRight() throws Exception {
        long before = cuda.freeDeviceBytes();
        int threads = 8;
        int pageBytes = 41_984;
        int pages = 64;
        try (CudaPageMemory shared = new CudaPageMemory(0)) {
            List<PageBuffer> buffers = new java.util.ArrayList<>();
            List<PageBuffer> copies = new java.util.ArrayList<>();
            int[][] expected = new int[threads][pages];
            long[] all = new long[pages];
            java.util.Arrays.setAll(all, i -> i);
            for (int t = 0; t < threads; t++) {
                byte[] content = random(100 + t, pages * pageBytes);
                PageBuffer b = shared.allocate("rank " + t, pages, pageBytes);
                shared.write(b, 0, content, 0, content.length);
                buffers.add(b);
                copies.add(shared.allocate("copy of rank " + t, pages, pageBytes));
                for (int k = 0; k < pages; k++) {
                    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                    crc.update(content, k * pageBytes, pageBytes);
                    expected[t][k] = (int) crc.getValue();
                }
            }
            PageBuffer doomed = shared.allocate("freed meanwhile", 8, pageBytes);
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
            try {
                List<java.util.concurrent.Future<Boolean>> results = new java.util.ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int rank = t;
                    results.add(pool.submit(() -> {
                        go.await();
                        boolean right = true;
                        for (int i = 0; i < 20; i++) {
                            right &= java.util.Arrays.equals(shared.crc32c(List.of(buffers.get(rank)), all), expected[rank]);
                            right &= java.util.Arrays.equals(shared.copyPagesChecked(List.of(new PageCopy(buffers.get(rank), all, copies.get(rank), all))),
                                    expected[rank]);
                        }
                        return right;
                    }));
                }
                go.countDown();
                shared.free(doomed);
                for (int t = 0; t < threads; t++) {
                    assertThat(results.get(t).get()).as("rank %d's checksums, in place and copied", t).isTrue();
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(shared.checksumLanes()).as("lanes made for calls that overlapped").isBetween(2, CudaPageMemory.CHECK_LANES);
            for (int t = 0; t < threads; t++) {
                assertThat(shared.crc32c(List.of(copies.get(t)), all)).as("what rank %d's checked copies landed", t).isEqualTo(expected[t]);
            }
        }
        assertThat(cuda.freeDeviceBytes()).as("the lanes' scratch freed with the memory").isGreaterThanOrEqualTo(before - (4 << 20));
    }

    @Test
    void deviceMemoryComesBackOnEveryPath() {
        long before = cuda.freeDeviceBytes();
        try (CudaPageMemory other = new CudaPageMemory(0)) {
            other.allocate("a", 1024, 41984);
            other.allocateHost("b", 64, 41984);
            PageBuffer c = other.allocate("c", 8, 41984);
            assertThatThrownBy(() -> other.copyPages(c, new long[] {9}, c, new long[] {0})).isInstanceOf(PageOutOfRangeException.class);
            assertThat(other.liveBuffers()).isEqualTo(3);
        }
        assertThat(cuda.freeDeviceBytes()).isGreaterThanOrEqualTo(before - (4 << 20));
    }

    @Test
    void eightGibGatherIsBitExactOnSampledPages() {
        int pageBytes = 41984;
        int pages = (int) ((8L << 30) / pageBytes) + 1; // > 8 GiB
        PageBuffer src = cuda.allocate("8GiB src", pages, pageBytes);
        PageBuffer dst = cuda.allocate("8GiB dst", pages, pageBytes);
        byte[] chunk = random(9, 4096 * pageBytes / 4096 * 64);
        for (int p = 0; p < pages; p += 64) {
            int n = Math.min(64, pages - p);
            for (int i = 0; i < n; i++) {
                chunk[i * pageBytes] = (byte) (p + i);
                chunk[i * pageBytes + 1] = (byte) ((p + i) >> 8);
                chunk[i * pageBytes + 2] = (byte) ((p + i) >> 16);
            }
            cuda.writePages(src, p, chunk, 0, n);
        }
        long[] srcPages = permutation(10, pages, pages);
        long[] dstPages = new long[pages];
        for (int i = 0; i < pages; i++) {
            dstPages[i] = i;
        }
        cuda.copyPages(src, srcPages, dst, dstPages);
        SplittableRandom r = new SplittableRandom(11);
        byte[] got = new byte[pageBytes];
        byte[] want = new byte[pageBytes];
        for (int k = 0; k < 200; k++) {
            int i = k == 0 ? 0 : k == 1 ? pages - 1 : r.nextInt(pages);
            cuda.readPages(dst, i, 1, got, 0);
            cuda.readPages(src, srcPages[i], 1, want, 0);
            assertThat(got).as("view page %d <- page %d", i, srcPages[i]).isEqualTo(want);
            assertThat((got[0] & 0xFF) | (got[1] & 0xFF) << 8 | (got[2] & 0xFF) << 16).isEqualTo((int) (srcPages[i] & 0xFFFFFF));
        }
        cuda.free(src);
        cuda.free(dst);
    }

    private static long[] tokens(int ps, long... pages) {
        long[] t = new long[pages.length * ps];
        for (int g = 0; g < pages.length; g++) {
            for (int k = 0; k < ps; k++) {
                t[g * ps + k] = pages[g] * ps + k;
            }
        }
        return t;
    }

    private static byte[] readAll(org.kvflow.pages.PageMemory copier, PageBuffer b) {
        byte[] out = new byte[(int) b.bytes()];
        copier.readPages(b, 0, (int) b.pages(), out, 0);
        return out;
    }

    @Test
    void eachCallSaysHowManyOfItsBytesCrossedBetweenHostAndDevice() {
        try (CudaPageMemory own = new CudaPageMemory(0)) {
            PageBuffer a = own.allocate("rank 0 mla", 8, 4096);
            PageBuffer b = own.allocate("view mla", 8, 4096);
            PageBuffer pinned = own.allocateHost("hicache host pool", 8, 4096);
            assertThat(own.write(a, 0, random(3, 3 * 4096), 0, 3 * 4096)).as("heap to device").isEqualTo(3L * 4096);
            assertThat(own.copyPages(a, new long[] {0, 1, 2}, b, new long[] {5, 6, 7})).as("device to device").isZero();
            assertThat(own.copyPages(List.of(new PageCopy(a, new long[] {0}, b, new long[] {0})))).as("device to device, batched").isZero();
            assertThat(own.copyPages(List.of(new PageCopy(a, new long[] {0, 1}, pinned, new long[] {0, 1})))).as("device to pinned host")
                    .isEqualTo(2L * 4096);
            assertThat(own.write(pinned, 0, new byte[100], 0, 100)).as("heap to pinned host: both on the host").isZero();
            assertThat(own.checksum(b, 5 * 4096, 4096, new java.util.zip.CRC32C())).isEqualTo(4096);
            assertThat(own.read(b, 6 * 4096, java.nio.ByteBuffer.allocateDirect(4096))).isEqualTo(4096);
        }
    }

    @Test
    void aPreparedBatchCopiesWhatTheBatchCopiesAndKeepsItsOwnLists() {
        try (CudaPageMemory own = new CudaPageMemory(0)) {
            PageBuffer a = own.allocate("rank 0 mla", 8, 4096);
            PageBuffer b = own.allocate("rank 1 mla", 8, 4096);
            PageBuffer view = own.allocate("view mla", 8, 4096);
            PageBuffer pinned = own.allocateHost("hicache host pool", 8, 4096);
            own.write(a, 0, random(5, 8 * 4096), 0, 8 * 4096);
            own.write(b, 0, random(6, 8 * 4096), 0, 8 * 4096);
            long[] fromA = {3, 1};
            long[] fromB = {7};
            List<PageCopy> batch = List.of(new PageCopy(a, fromA, view, new long[] {0, 1}), new PageCopy(b, fromB, view, new long[] {2}),
                    new PageCopy(a, new long[] {2}, pinned, new long[] {5}));
            try (org.kvflow.pages.PreparedCopies.Prepared prepared = own.prepare(batch)) {
                fromA[0] = 6; // the caller's list changes after the copy was prepared: the prepared copy keeps its own
                assertThat(prepared.run()).as("one page from device to pinned host crossed").isEqualTo(4096);
                byte[] got = readAll(own, view);
                byte[] ra = readAll(own, a);
                byte[] rb = readAll(own, b);
                assertThat(java.util.Arrays.copyOfRange(got, 0, 4096)).isEqualTo(java.util.Arrays.copyOfRange(ra, 3 * 4096, 4 * 4096));
                assertThat(java.util.Arrays.copyOfRange(got, 4096, 2 * 4096)).isEqualTo(java.util.Arrays.copyOfRange(ra, 4096, 2 * 4096));
                assertThat(java.util.Arrays.copyOfRange(got, 2 * 4096, 3 * 4096)).isEqualTo(java.util.Arrays.copyOfRange(rb, 7 * 4096, 8 * 4096));
                assertThat(java.util.Arrays.copyOfRange(readAll(own, pinned), 5 * 4096, 6 * 4096)).isEqualTo(java.util.Arrays.copyOfRange(ra, 2 * 4096, 3 * 4096));
                own.write(view, 0, new byte[8 * 4096], 0, 8 * 4096);
                prepared.run(); // again: the same pages
                assertThat(java.util.Arrays.copyOfRange(readAll(own, view), 0, 3 * 4096)).isEqualTo(java.util.Arrays.copyOfRange(got, 0, 3 * 4096));
                own.free(b);
                assertThatThrownBy(prepared::run).isInstanceOf(IllegalStateException.class)
                        .hasMessage("a prepared copy (copying pages of 3 buffer pairs (first rank 0 mla to view mla)) names rank 1 mla, freed since it was prepared");
            }
            List<PageCopy> bad = List.of(new PageCopy(a, new long[] {8}, view, new long[] {0}));
            assertThatThrownBy(() -> own.prepare(bad)).isInstanceOf(PageOutOfRangeException.class);
            org.kvflow.pages.PreparedCopies.Prepared closed = own.prepare(List.of(new PageCopy(a, new long[] {0}, view, new long[] {0})));
            closed.close();
            assertThatThrownBy(closed::run).isInstanceOf(IllegalStateException.class).hasMessageContaining("run after it was closed");
        }
    }
}

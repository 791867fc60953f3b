package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;

/**
 * On the GPU machine: three rank processes hold their pools in device memory and export them by
 * CUDA IPC; the coordinator opens them in place and gathers a full view from the peers' pages
 * with the same copy kernel as from its own pools: every view page equals its owner's, by the
 * owner's own digest. A killed rank is named by the next gather that needs it, and never read;
 * a gather from the others still works.
 */
@Tag("cuda")
class RankProcessesGpuTest {
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 2, 512, 64, 128), KvDtype.FP8_E4M3);
    private static final int PS = 64;
    private static final int PAGES = 6;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static long crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return crc.getValue();
    }

    @Test
    void aViewIsGatheredFromThePeersPoolsInPlaceAndALostRankIsNeverRead() throws Exception {
        try (PageMemory cuda = PageMemories.open("cuda");
             RankProcesses ranks = RankProcesses.start(new RankSpec(0, "cuda:*", LAYOUT, PS, PAGES), 3, cuda, TIMEOUT);
             PageStore view = PageStore.allocate(cuda, "view", LAYOUT, PS, 3 * PAGES)) {
            assertThat(ranks.mapped()).as(ranks.unmappedReason()).isTrue();
            int gpus = new org.kvflow.cuda.CudaPageMemoryProvider().devices();
            for (int r = 0; r < 3; r++) {
                assertThat(ranks.memoryOf(r)).as("one rank per GPU, wrapping around").isEqualTo("cuda:" + r % gpus);
            }
            fill(ranks.pools(), 11);
            List<long[]> src = new ArrayList<>();
            List<long[]> dst = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                long[] s = new long[PAGES];
                long[] d = new long[PAGES];
                for (int k = 0; k < PAGES; k++) {
                    s[k] = PAGES - 1 - k;
                    d[k] = (long) k * 3 + r;
                }
                src.add(s);
                dst.add(d);
            }
            ranks.gather(view, new int[] {0, 1, 2}, src, dst);
            for (int r = 0; r < 3; r++) {
                for (int k = 0; k < PAGES; k++) {
                    for (KvComponent c : KvComponent.values()) {
                        for (int l = 0; l < 2; l++) {
                            assertThat(crc(view.readPage(l, c, dst.get(r)[k]))).as("rank %d page %d %s layer %d", r, src.get(r)[k], c, l)
                                    .isEqualTo(ranks.digest(r, l, c, src.get(r)[k]).block(TIMEOUT));
                        }
                    }
                }
            }
            ProcessHandle.of(ranks.pid(2)).orElseThrow().destroyForcibly();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (ranks.lost(2).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThatThrownBy(() -> ranks.gather(view, new int[] {0, 1, 2}, src, dst)).isInstanceOf(RankLostException.class)
                    .hasMessageStartingWith("rank 2 is lost: ");
            ranks.gather(view, new int[] {0, 1}, src.subList(0, 2), dst.subList(0, 2));
            assertThat(crc(view.readPage(1, KvComponent.MLA, dst.get(1)[4]))).isEqualTo(ranks.digest(1, 1, KvComponent.MLA, src.get(1)[4]).block(TIMEOUT));
        }
    }

    @Test
    void shareablePoolsAreReadInPlaceThroughOneVirtualViewOfEveryRank() {
        try (PageMemory cuda = PageMemories.open("cuda");
             RankProcesses ranks = RankProcesses.start(new RankSpec(0, "cuda", LAYOUT, PS, PAGES).shared(), 3, cuda, TIMEOUT)) {
            assertThat(ranks.mapped()).as(ranks.unmappedReason()).isTrue();
            fill(ranks.pools(), 5);
            try (PageStore virtual = ranks.openView("virtual view")) {
                long stride = virtual.pages() / 3;
                assertThat(stride).isGreaterThanOrEqualTo(PAGES);
                for (int r = 0; r < 3; r++) {
                    for (int k = 0; k < PAGES; k++) {
                        for (KvComponent c : KvComponent.values()) {
                            assertThat(crc(virtual.readPage(1, c, r * stride + k))).as("rank %d page %d %s through the view", r, k, c)
                                    .isEqualTo(ranks.digest(r, 1, c, k).block(TIMEOUT));
                        }
                    }
                }
                // the opened pools (each by its own descriptor) and the view reach the same pages
                try (PageStore local = PageStore.allocate(cuda, "local", LAYOUT, PS, PAGES)) {
                    ranks.gather(local, new int[] {2}, List.of(new long[] {3}), List.of(new long[] {0}));
                    assertThat(local.readPage(KvComponent.MLA, 0)).isEqualTo(virtual.readPage(KvComponent.MLA, 2 * stride + 3));
                }
            }
        }
    }

    /** Every page of every rank's pool, written in place from this process with bytes drawn from {@code seed}. */
    private static void fill(List<PageStore> pools, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (PageStore pool : pools) {
            for (KvComponent c : KvComponent.values()) {
                byte[] page = new byte[pool.layers() * pool.pageBytes(c)];
                for (long p = 0; p < pool.pages(); p++) {
                    random.nextBytes(page);
                    pool.writePage(c, p, page);
                }
            }
        }
    }
}

package org.kvflow.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.PreparedGather;
import org.kvflow.ranks.RankProcesses;
import org.kvflow.ranks.RankSpec;
import org.kvflow.kernels.rows.StoreRows;

/**
 * CP ranks as processes on one GPU: {@code cp} rank processes each hold their pool of DeepSeek
 * V3.2 fp8 KV ({@code layers} layers, page 64) in device memory and export it by CUDA IPC; this
 * process opens the pools in place and gathers the full view of a {@code tokens}-token request
 * from them with the pipeline's copy kernel, against the same gather from eight pools of its own
 * and one {@code cuMemcpyDtoD} of the same bytes, in the same run (each after 200 untimed calls,
 * medians of 10). Checks sampled view pages against their owners' own digests, and prints the
 * logical capacity of shared vs replicated KV for the rank pools' budget. With {@code shared}, the
 * ranks' pools are shareable allocations and the coordinator also maps them side by side in one
 * virtual view: the attention step (the request's keys read in place, then indexer, top-k and
 * sparse attention for 8,192 queries, 128 a run, layer 0) reading through the virtual view
 * against the same step on the gathered local view, alternated five times each, medians; and the
 * prefill-step overhead of each way (one layer's gather ÷ one layer's attention step at the full
 * length, same run); and the gather from eight shareable pools of this process (the ranks'
 * allocation kind, not imported), with the processes' gather kernel timed alone, and the processes'
 * gather with new page lists on every call (the table built, checked and sent each time, as each
 * batch of a running pipeline brings its own). One JSON
 * object per line. Arguments: cp (8), tokens (131072), layers (61), [shared].
 */
public final class RankProcessBench {
    private static final int PS = 64;
    private static final int WARMUP = 200;

    private RankProcessBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("RankProcessBench");
        OwnedRequest request = OwnedRequest.fromArgs(args);
        boolean shareable = args.length > 3 && args[3].equals("shared");
        int cp = request.cp();
        int tokens = request.tokens();
        int layers = request.layers();
        KvLayout layout = request.layout();
        int pages = request.pages();
        int perRank = request.perRank();
        OwnershipMap ownership = request.ownership();
        long[] ids = request.ids();
        long[][] src = request.src();
        long[][] dst = request.dst();
        int[] everyRank = java.util.stream.IntStream.range(0, cp).toArray();
        try (CudaBench gpu = CudaBench.open(0);
             RankProcesses ranks = RankProcesses.start(shareable ? new RankSpec(0, "cuda", layout, PS, perRank).shared()
                     : new RankSpec(0, "cuda", layout, PS, perRank), cp, gpu.memory(), Duration.ofMinutes(2))) {
            CudaPageMemory cuda = gpu.memory();
            if (!ranks.mapped()) {
                throw new IllegalStateException("the rank pools are not opened in place: " + ranks.unmappedReason());
            }
            fillInPlace(ranks.pools());
            PageStore view = PageStore.allocate(cuda, "full view", layout, PS, pages);
            long viewBytes = (long) pages * layers * (view.mlaPageBytes() + view.indexPageBytes());
            System.out.printf(Locale.ROOT, "{\"name\":\"setup\",\"device\":\"%s\",\"cp\":%d,\"tokens\":%d,\"layers\":%d,\"pages_per_rank\":%d,"
                    + "\"view_bytes\":%d}%n", cuda.deviceName(), cp, tokens, layers, perRank, viewBytes);
            // the same view gathered again and again from the same pages: prepared once (lists checked, table kept on the device)
            float fromProcesses;
            try (PreparedGather prepared = PreparedGather.of(view, java.util.Arrays.stream(everyRank).mapToObj(r -> ranks.pools().get(r)).toList(),
                    List.of(src), List.of(dst))) {
                fromProcesses = RankLayoutBench.report(gpu, "materialize_from_rank_processes", 2 * viewBytes, WARMUP, prepared::run);
                RankLayoutBench.reportKernel(gpu, "materialize_from_rank_processes_kernel_only", prepared::run);
            }
            // each call checked and its table built and compared again, as a plain gather does
            RankLayoutBench.report(gpu, "materialize_from_rank_processes_checked", 2 * viewBytes, WARMUP,
                    () -> ranks.gather(view, everyRank, List.of(src), List.of(dst)));
            // as in a running pipeline, where each batch brings new page lists: every other call the owners' lists in reverse
            // order (the same pages and bytes), so every call's table is built, checked and sent again
            long[][] reversed = reversed(src);
            long[][] reversedDst = reversed(dst);
            int[] calls = {0};
            RankLayoutBench.report(gpu, "materialize_from_rank_processes_new_lists", 2 * viewBytes, WARMUP,
                    () -> ranks.gather(view, everyRank, List.of(calls[0] % 2 == 0 ? src : reversed), List.of(calls[0]++ % 2 == 0 ? dst : reversedDst)));
            check(ranks, view, ownership, ids, layers);
            double step = Double.NaN;
            if (shareable) {
                try (PageStore virtual = ranks.openView("virtual view of " + cp + " ranks")) {
                    step = attentionInPlace(virtual, view, ownership, ids, tokens);
                }
            }
            List<PageStore> own = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                own.add(PageStore.allocate(cuda, "in-process rank " + r, layout, PS, perRank));
            }
            float inProcess = RankLayoutBench.report(gpu, "materialize_from_in_process_pools", 2 * viewBytes, WARMUP,
                    () -> view.gatherFrom(own, List.of(src), List.of(dst)));
            own.forEach(PageStore::close);
            if (shareable) { // the same allocation kind as the ranks' pools, in this process: what importing them adds
                List<PageStore> vmm = new ArrayList<>();
                for (int r = 0; r < cp; r++) {
                    vmm.add(PageStore.allocateShared(cuda, "in-process shareable rank " + r, layout, PS, perRank));
                }
                RankLayoutBench.report(gpu, "materialize_from_in_process_shareable_pools", 2 * viewBytes, WARMUP,
                        () -> view.gatherFrom(vmm, List.of(src), List.of(dst)));
                vmm.forEach(PageStore::close);
            }
            RankLayoutBench.dtod(gpu, "memcpy_dtod_same_bytes", viewBytes);
            if (shareable) { // one layer's gather ÷ one layer's attention step at the full length, both from this run
                System.out.printf(Locale.ROOT, "{\"name\":\"step_overhead\",\"rank_processes\":%.6f,\"in_process\":%.6f,\"read_in_place\":0}%n",
                        fromProcesses / layers / step, inProcess / layers / step);
            }
            view.close();
        }
        long rankBudget = (long) perRank * layout.bytesPerTokenAllLayers() * PS;
        PoolCapacity pool = PoolCapacity.fromBudget(rankBudget, layout, PS);
        long shared = pool.usableLogicalTokens(PoolLayout.SHARED, cp);
        long replicated = pool.usableLogicalTokens(PoolLayout.REPLICATED, cp);
        System.out.printf(Locale.ROOT, "{\"name\":\"capacity\",\"rank_budget_bytes\":%d,\"shared_tokens\":%d,\"replicated_tokens\":%d,"
                + "\"ratio\":%.5f}%n", rankBudget, shared, replicated, (double) shared / replicated);
    }

    /**
     * The attention step at the full length, reading the request's keys through the virtual view
     * of the ranks' pools (no materialization) against reading them from the gathered local view,
     * alternated, medians of five: the overhead of reading in place.
     */
    private static double attentionInPlace(PageStore virtual, PageStore local, OwnershipMap ownership, long[] ids, int tokens) {
        int cp = ownership.cpSize();
        long stride = virtual.pages() / cp;
        long[] virtualPages = new long[ids.length];
        long[] localPages = new long[ids.length];
        for (int k = 0; k < ids.length; k++) {
            virtualPages[k] = ownership.owner(ids[k]) * stride + ownership.localPage(ids[k]);
            localPages[k] = k;
        }
        for (int s = 0; s < 8; s++) {
            int k = (int) ((s * 2654435761L) % ids.length);
            if (!java.util.Arrays.equals(virtual.readPage(0, KvComponent.MLA, virtualPages[k]), local.readPage(0, KvComponent.MLA, k))) {
                throw new IllegalStateException("request page " + k + " differs between the virtual view and the gathered view");
            }
        }
        long[] all = new long[tokens];
        java.util.Arrays.setAll(all, i -> i);
        org.kvflow.kernels.nsa.NsaDims d = org.kvflow.kernels.nsa.NsaDims.REAL;
        int width = d.latent() + d.rope();
        int batch = 128;
        int runs = 8192 / batch;
        SplittableRandom rnd = new SplittableRandom(5);
        float[] indexQueries = gaussian(rnd, batch * d.index());
        float[] queries = gaussian(rnd, batch * width);
        double[] inPlace = new double[5];
        double[] fromLocal = new double[5];
        double[] readInPlace = new double[5];
        double[] readLocal = new double[5];
        try (org.kvflow.kernels.nsa.AttentionChain chain = new org.kvflow.kernels.nsa.AttentionChain(
                new org.kvflow.kernels.nsa.AttentionChain.Shape(d.index(), width, d.latent(), batch, tokens, d.topk()),
                org.kvflow.kernels.api.Devices.select("cuda"))) {
            for (int i = -1; i < 5; i++) { // round -1 warms both up
                for (boolean throughView : new boolean[] {true, false}) {
                    PageStore from = throughView ? virtual : local;
                    long[] pages = throughView ? virtualPages : localPages;
                    long t0 = System.nanoTime();
                    chain.loadKeys((codes, scales) -> StoreRows.readIndexKeys(from, 0, pages, tokens, codes, scales), out -> StoreRows.readKeyRows(from, 0, pages, all, out));
                    double read = (System.nanoTime() - t0) / 1e6;
                    for (int q = 0; q < runs; q++) {
                        chain.run(indexQueries, queries);
                    }
                    double step = (System.nanoTime() - t0) / 1e6;
                    if (i >= 0) {
                        (throughView ? inPlace : fromLocal)[i] = step;
                        (throughView ? readInPlace : readLocal)[i] = read;
                    }
                }
            }
        }
        double through = median(inPlace);
        double localStep = median(fromLocal);
        System.out.printf(Locale.ROOT, "{\"name\":\"attention_in_place\",\"step_through_view_ms\":%.2f,\"step_from_local_view_ms\":%.2f,"
                        + "\"key_read_through_view_ms\":%.2f,\"key_read_from_local_view_ms\":%.2f,\"overhead_in_place\":%.5f,\"stride_pages\":%d}%n",
                through, localStep, median(readInPlace), median(readLocal), through / localStep - 1, stride);
        return localStep;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s[s.length / 2];
    }

    private static float[] gaussian(SplittableRandom rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return v;
    }

    /** Sampled view pages (every layer of the MLA pool) against the CRC32C their owner process computes of its own page. */
    private static void check(RankProcesses ranks, PageStore view, OwnershipMap ownership, long[] ids, int layers) {
        SplittableRandom rnd = new SplittableRandom(13);
        for (int s = 0; s < 16; s++) {
            int k = rnd.nextInt(ids.length);
            int layer = rnd.nextInt(layers);
            CRC32C crc = new CRC32C();
            crc.update(view.readPage(layer, KvComponent.MLA, k));
            long owner = ranks.digest(ownership.owner(ids[k]), layer, KvComponent.MLA, ownership.localPage(ids[k])).block(Duration.ofMinutes(1));
            if (crc.getValue() != owner) {
                throw new IllegalStateException("view page " + k + " layer " + layer + " differs from its owner's page");
            }
        }
        System.out.println("{\"name\":\"check\",\"view_pages_checked\":16,\"ok\":true}");
    }

    /** Each list in reverse order, as new arrays. */
    private static long[][] reversed(long[][] lists) {
        long[][] out = new long[lists.length][];
        for (int r = 0; r < lists.length; r++) {
            out[r] = new long[lists[r].length];
            for (int i = 0; i < lists[r].length; i++) {
                out[r][i] = lists[r][lists[r].length - 1 - i];
            }
        }
        return out;
    }

    /** Every page of every rank's pool, written through this process's mapping of it (random bytes, one stream). */
    private static void fillInPlace(List<PageStore> pools) {
        SplittableRandom random = new SplittableRandom(3);
        for (PageStore pool : pools) {
            for (KvComponent component : KvComponent.values()) {
                byte[] payload = new byte[pool.layers() * pool.pageBytes(component)];
                for (long page = 0; page < pool.pages(); page++) {
                    random.nextBytes(payload);
                    pool.writePage(component, page, payload);
                }
            }
        }
    }
}

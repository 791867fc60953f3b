package org.kvflow.bench;

import java.util.ArrayList;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.nsa.AttentionChain;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.model.ModelRows;
import org.kvflow.pages.KvComponent;
import org.kvflow.kernels.rows.DeviceRows;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.PreparedGather;
import org.kvflow.kernels.rows.RowWrites;
import org.kvflow.core.model.KvLayout;
import org.kvflow.operators.backup.HiCacheBackupOperator;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.ranks.RankProcesses;
import org.kvflow.ranks.RankSpec;
import org.kvflow.kernels.rows.StoreRows;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * One layer of a long prefill at real shapes on the GPU, the pipeline's own operations stage by
 * stage: the synthetic NSA/MLA layer at DeepSeek V3.2 dimensions (latent 512, rope 64, index 128,
 * top 2,048), fp8 KV, page 64, CP {@code cp} with every owner's pools as device {@link PageStore}s
 * on the one GPU, and one request of {@code tokens} tokens prefilled in chunks of {@code chunk}.
 * Per chunk it times:
 * <ul>
 *   <li><b>write</b>: the chunk's rows computed on the cuda task-graph device and left there
 *       ({@link ModelRows#onDevice}), then stored in place into their owners' pools in one
 *       launch, as the write stage does (shared KV); the same rows stored into every rank's full
 *       pool (replicated KV);</li>
 *   <li><b>materialize</b>: the full view of the pages so far gathered from the owners' pools in one batch;</li>
 *   <li><b>key read</b>: the index keys and the dequantised key rows of every position so far read
 *       out of the view's pages in place into the attention's device arrays (what the attention
 *       stage does; both layouts need it, so it is not part of the overhead);</li>
 *   <li><b>attention</b>: the indexer scores, top-k and sparse attention of the chunk's queries over
 *       every key so far ({@link AttentionChain}, {@code batch} queries a run);</li>
 *   <li><b>backup</b>: the chunk's completed pages copied from the owners' pools into pinned host memory.</li>
 * </ul>
 * Then, at the full length, the view gather prepared once ({@link PreparedGather}: the lists checked
 * and the table kept on the device; after 200 warm-up gathers and 200 runs) and the plain gather
 * (each call checked) against one {@code cuMemcpyDtoD} of the same bytes (device time of the whole
 * call, medians of 10) and the
 * gather kernel alone (median of 21 timed launches); checks sampled view pages against their owners, the replicated pools and
 * the backup; prints the page bytes that crossed the host by stage. One JSON object per line.
 * Arguments: cp (8), tokens (131072), chunk (8192), batch (128), and {@code processes} to hold
 * each owner's pool in a rank process of its own (opened here by CUDA IPC) instead of in this one.
 */
public final class GpuPrefillBench {
    private static final int PS = 64;

    private GpuPrefillBench() {}

    /** Sums of one stage's wall times over the chunks, in ms. */
    private static final class Totals {
        double writeRows;
        double writeShared;
        double writeReplicated;
        double materialize;
        double keyRead;
        double attention;
        double backup;
        long writeBytes;
        long viewBytes;
        long backupBytes;
    }

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("GpuPrefillBench");
        int cp = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 131_072;
        int chunk = args.length > 2 ? Integer.parseInt(args[2]) : 8_192;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : 128;
        boolean processes = args.length > 4 && args[4].equals("processes");
        if (tokens % chunk != 0 || chunk % batch != 0 || chunk % PS != 0) {
            throw new IllegalArgumentException("tokens " + tokens + ", chunk " + chunk + ", batch " + batch
                    + ": chunks must split the request, batches the chunk, pages the chunk");
        }
        NsaDims dims = NsaDims.REAL;
        SyntheticModel model = new SyntheticModel(dims, KvDtype.FP8_E4M3, 1, 2026);
        KvLayout layout = model.layout();
        int pages = tokens / PS;
        int perRank = pages / cp + 64;
        OwnershipMap ownership = new OwnershipMap(cp, PS);
        long[] ids = RankLayoutBench.sample(new SplittableRandom(7), pages, (long) cp * perRank);
        Device kernels = Devices.select("cuda");
        Totals t = new Totals();
        try (CudaBench gpu = CudaBench.open(0);
             ModelRows rows = new ModelRows(model, kernels);
             RankProcesses ranks = processes ? RankProcesses.start(new RankSpec(0, "cuda", layout, PS, perRank), cp, gpu.memory(), Duration.ofMinutes(2)) : null) {
            CudaPageMemory cuda = gpu.memory();
            List<PageStore> owners = new ArrayList<>();
            List<PageStore> replicas = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                if (ranks == null) {
                    owners.add(PageStore.allocate(cuda, "rank " + r, layout, PS, perRank));
                }
                replicas.add(PageStore.allocate(cuda, "replicated rank " + r, layout, PS, pages));
            }
            if (ranks != null) {
                if (!ranks.mapped()) {
                    throw new IllegalStateException("the rank processes' pools are not opened in place: " + ranks.unmappedReason());
                }
                owners.addAll(ranks.pools());
            }
            PageStore view = PageStore.allocate(cuda, "full view", layout, PS, pages);
            PageStore host = PageStore.allocateHost(cuda, "hicache host pool", layout, PS, pages);
            int pageBytes = view.mlaPageBytes() + view.indexPageBytes();
            System.out.printf(Locale.ROOT, "{\"name\":\"setup\",\"owners\":\"%s\",\"device\":\"%s\",\"cp\":%d,\"tokens\":%d,\"chunk\":%d,\"query_batch\":%d,"
                    + "\"page_bytes\":%d,\"view_bytes\":%d}%n", processes ? "rank processes" : "in process", cuda.deviceName(), cp, tokens, chunk, batch, pageBytes, (long) pages * pageBytes);
            Queries queries = new Queries(new SplittableRandom(5));
            for (int s = 0; s < tokens; s += chunk) {
                chunk(s, s + chunk, batch, rows, ids, ownership, owners, replicas, view, host, queries, t);
            }
            System.out.printf(Locale.ROOT, "{\"name\":\"totals\",\"write_rows_ms\":%.2f,\"write_shared_ms\":%.2f,\"write_replicated_ms\":%.2f,"
                            + "\"materialize_ms\":%.2f,\"key_read_ms\":%.2f,\"attention_ms\":%.2f,\"backup_ms\":%.2f,"
                            + "\"write_gbps\":%.1f,\"materialize_gbps\":%.1f,\"backup_gbps\":%.1f,"
                            + "\"shared_kv_overhead\":%.5f,\"shared_over_replicated_step\":%.4f}%n",
                    t.writeRows, t.writeShared, t.writeReplicated, t.materialize, t.keyRead, t.attention, t.backup,
                    t.writeBytes / (t.writeShared * 1e6), 2.0 * t.viewBytes / (t.materialize * 1e6), t.backupBytes / (t.backup * 1e6),
                    t.materialize / t.attention,
                    (t.writeRows + t.writeShared + t.materialize + t.attention) / (t.writeRows + t.writeReplicated + t.attention));
            fullLength(gpu, ownership, ids, owners, view, pages, pageBytes);
            check(ids, ownership, owners, replicas, view, host);
            System.out.printf(Locale.ROOT, "{\"name\":\"host_bytes\",\"by_stage\":%s,\"write_to_attention\":%d}%n",
                    json(cuda.hostTraffic().byStage()), cuda.hostTraffic().bytes(OwnerWriteOperator.STAGE) + cuda.hostTraffic().bytes(MaterializeOperator.STAGE));
        }
    }

    /** One chunk's stages on one layer; prints the chunk's line and adds to the totals. */
    private static void chunk(int from, int to, int batch, ModelRows rows, long[] ids, OwnershipMap ownership, List<PageStore> owners,
                              List<PageStore> replicas, PageStore view, PageStore host, Queries queries, Totals t) {
        int n = to - from;
        int[] tokenIds = new int[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            positions[i] = from + i;
            tokenIds[i] = (int) ((from + i) * 2654435761L % 129_280);
        }
        RowWrites shared = new RowWrites();
        RowWrites replicated = new RowWrites();
        for (int i = 0; i < n; i++) {
            long id = ids[(from + i) / PS];
            shared.add(i, ownership.owner(id), ownership.localPage(id) * PS + (from + i) % PS);
            for (int r = 0; r < replicas.size(); r++) {
                replicated.add(i, r, from + i);
            }
        }
        long t0 = System.nanoTime();
        DeviceRows chunkRows = rows.onDevice(0, tokenIds, positions);
        double rowsMs = ms(t0);
        t0 = System.nanoTime();
        StoreRows.store(owners, 0, chunkRows, shared); // in place, kernel to device pools
        double sharedMs = ms(t0);
        t0 = System.nanoTime();
        StoreRows.store(replicas, 0, chunkRows, replicated);
        double replicatedMs = ms(t0);

        int viewPages = to / PS;
        long[][] src = new long[ownership.cpSize()][];
        long[][] dst = new long[ownership.cpSize()][];
        RankLayoutBench.split(ownership, Arrays.copyOf(ids, viewPages), src, dst);
        t0 = System.nanoTime();
        view.countedAs(MaterializeOperator.STAGE).gatherFrom(owners, List.of(src), List.of(dst));
        double materialize = ms(t0);

        NsaDims d = NsaDims.REAL;
        int width = d.latent() + d.rope();
        double keyRead;
        double attention;
        try (AttentionChain chain = new AttentionChain(new AttentionChain.Shape(d.index(), width, d.latent(), batch, to, d.topk()),
                Devices.select("cuda"))) {
            long[] pages = new long[viewPages];
            Arrays.setAll(pages, i -> i);
            long[] all = new long[to];
            Arrays.setAll(all, i -> i);
            t0 = System.nanoTime();
            chain.loadKeys((codes, scales) -> StoreRows.readIndexKeys(view, 0, pages, to, codes, scales), out -> StoreRows.readKeyRows(view, 0, pages, all, out));
            keyRead = ms(t0);
            float[] indexQueries = queries.gaussian(batch * d.index());
            float[] q = queries.gaussian(batch * width);
            chain.run(indexQueries, q); // the chain's first run at this key count: module and buffers ready
            t0 = System.nanoTime();
            for (int i = 0; i < n; i += batch) {
                chain.run(indexQueries, q);
            }
            attention = ms(t0);
        }

        long[] completed = new long[n / PS];
        Arrays.setAll(completed, i -> from / PS + i);
        long[][] bsrc = new long[ownership.cpSize()][];
        long[][] bdst = new long[ownership.cpSize()][];
        splitPages(ownership, ids, completed, bsrc, bdst);
        t0 = System.nanoTime();
        host.countedAs(HiCacheBackupOperator.STAGE).gatherFrom(owners, List.of(bsrc), List.of(bdst));
        double backup = ms(t0);

        int pageBytes = view.mlaPageBytes() + view.indexPageBytes();
        t.writeRows += rowsMs;
        t.writeShared += sharedMs;
        t.writeReplicated += replicatedMs;
        t.materialize += materialize;
        t.keyRead += keyRead;
        t.attention += attention;
        t.backup += backup;
        t.writeBytes += (long) n * (view.layout().mlaRowBytes() + view.indexPageBytes() / PS);
        t.viewBytes += (long) viewPages * pageBytes;
        t.backupBytes += (long) completed.length * pageBytes;
        System.out.printf(Locale.ROOT, "{\"name\":\"chunk\",\"from\":%d,\"to\":%d,\"write_rows_ms\":%.3f,\"write_shared_ms\":%.3f,"
                        + "\"write_replicated_ms\":%.3f,\"materialize_ms\":%.3f,\"key_read_ms\":%.3f,\"attention_ms\":%.3f,\"backup_ms\":%.3f,"
                        + "\"materialize_gbps\":%.1f,\"overhead\":%.5f}%n",
                from, to, rowsMs, sharedMs, replicatedMs, materialize, keyRead, attention, backup,
                2.0 * viewPages * pageBytes / (materialize * 1e6), materialize / attention);
    }

    /** Per owner: the local pages of request pages {@code positions} and the same positions as destination pages. */
    private static void splitPages(OwnershipMap ownership, long[] ids, long[] positions, long[][] src, long[][] dst) {
        long[] chosen = new long[positions.length];
        for (int k = 0; k < positions.length; k++) {
            chosen[k] = ids[(int) positions[k]];
        }
        RankLayoutBench.split(ownership, chosen, src, dst);
        for (long[] d : dst) {
            for (int k = 0; k < d.length; k++) {
                d[k] = positions[(int) d[k]];
            }
        }
    }

    /** At the full length: the view gather and one cuMemcpyDtoD of the same bytes, device time, medians of 10. */
    private static void fullLength(CudaBench gpu, OwnershipMap ownership, long[] ids, List<PageStore> owners, PageStore view, int pages,
                                   int pageBytes) {
        long[][] src = new long[ownership.cpSize()][];
        long[][] dst = new long[ownership.cpSize()][];
        RankLayoutBench.split(ownership, ids, src, dst);
        long bytes = 2L * pages * pageBytes;
        for (int i = 0; i < 200; i++) { // the steady state of a long-running pipeline: the gather's host code JIT-compiled
            view.gatherFrom(owners, List.of(src), List.of(dst));
        }
        try (PreparedGather prepared = PreparedGather.of(view, owners, List.of(src), List.of(dst))) { // lists checked once, table kept
            RankLayoutBench.report(gpu, "materialize_full_view", bytes, 200, prepared::run);
            RankLayoutBench.reportKernel(gpu, "materialize_kernel_only", prepared::run);
        }
        RankLayoutBench.report(gpu, "materialize_full_view_checked", bytes, () -> view.gatherFrom(owners, List.of(src), List.of(dst)));
        RankLayoutBench.dtod(gpu, "memcpy_dtod_same_bytes", (long) pages * view.mlaPageBytes(), (long) pages * view.indexPageBytes());
    }

    /** Sampled request pages: the view, the owner, a replicated rank and the host backup hold the same bytes. */
    private static void check(long[] ids, OwnershipMap ownership, List<PageStore> owners, List<PageStore> replicas, PageStore view,
                              PageStore host) {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int s = 0; s < 32; s++) {
            int k = s == 0 ? 0 : s == 1 ? ids.length - 1 : rnd.nextInt(ids.length);
            for (KvComponent c : KvComponent.values()) {
                byte[] owner = owners.get(ownership.owner(ids[k])).readPage(0, c, ownership.localPage(ids[k]));
                byte[][] others = {view.readPage(0, c, k), replicas.get(s % replicas.size()).readPage(0, c, k), host.readPage(0, c, k)};
                for (byte[] other : others) {
                    if (!Arrays.equals(owner, other)) {
                        throw new IllegalStateException("request page " + k + " " + c + " differs between its owner and a copy");
                    }
                }
            }
        }
        System.out.println("{\"name\":\"check\",\"pages_checked\":32,\"ok\":true}");
    }

    private static String json(java.util.Map<String, Long> map) {
        StringBuilder s = new StringBuilder("{");
        map.forEach((k, v) -> s.append(s.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return s.append('}').toString();
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Random queries for the attention step (the keys come from the view). */
    private static final class Queries {
        private final SplittableRandom rnd;

        Queries(SplittableRandom rnd) {
            this.rnd = rnd;
        }

        float[] gaussian(int n) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = (float) rnd.nextGaussian();
            }
            return v;
        }
    }
}

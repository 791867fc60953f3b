package org.kvflow.operators.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.DebugMode;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroups;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.kernels.rows.RowWrites;
import org.kvflow.kernels.nsa.HostRows;
import org.kvflow.operators.group.HostPrefixSource;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.model.KvModel;
import org.kvflow.model.ModelRows;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.group.RankStores;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.stage.BatchStage;
import org.kvflow.operators.stage.StageOperator;
import org.kvflow.operators.stage.StageRunner;
import reactor.core.publisher.Flux;
import org.kvflow.kernels.rows.StoreRows;

/**
 * Computes each chunk's KV rows with the model's producer on a kernel device (key floats, then fp8
 * quantisation and encoding by {@link org.kvflow.kernels.nsa.RowEncoder}) and stores them (contract §4.4 write rule): after
 * the CP all-gather every rank holds the whole chunk, and under shared KV rank {@code r} keeps only
 * the rows with {@code ownerOfLoc == r}, at {@code localRow(loc)}; replicated ranks keep every row
 * at {@code loc}. Where the rank stores' memory reaches the kernel device (cuda pools with the cuda
 * device), the rows stay on the device and the page memory stores them in place, one launch per
 * layer; elsewhere they come to the host and are written run by run. Pages admitted as a host-cache hit are loaded from the host cache with the first
 * chunk instead. With the pages-only model the stage passes batches through (page planning only).
 */
public final class OwnerWriteOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    /** The stage's operator name, under which its host traffic is counted. */
    public static final String STAGE = "kvflow.write";

    private final KvGroup group;
    private final Device device;

    /**
     * Rows computed on the plain-Java kernel device.
     *
     * @param group the group whose rank stores the rows go to
     */
    public OwnerWriteOperator(KvGroup group) {
        this(group, Devices.java());
    }

    /**
     * Rows computed on {@code device}.
     *
     * @param group  the group whose rank stores the rows go to
     * @param device where the model's rows are computed and quantised
     */
    public OwnerWriteOperator(KvGroup group, Device device) {
        this.group = Objects.requireNonNull(group, "group");
        this.device = Objects.requireNonNull(device, "device");
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        KvModel model = group.model();
        if (!model.storesBytes()) {
            return upstream.name(STAGE);
        }
        return new StageOperator(upstream, new StageRunner(group, STAGE), () -> new WriteStage(model, new ModelRows(model, device)));
    }

    /** One run's write stage: the chunk-row kernels it holds are freed when the run ends. */
    private final class WriteStage implements BatchStage {
        private final KvModel model;
        private final ModelRows rows;

        WriteStage(KvModel model, ModelRows rows) {
            this.model = model;
            this.rows = rows;
        }

        @Override
        public PrefillBatch apply(PrefillBatch batch) {
            return batch.mapActive(entry -> {
                RequestState state = entry.state();
                if (state.loadsHostPages(entry.chunkStart())) {
                    loadHostPages(state);
                }
                writeChunk(model, rows, state, entry.chunkStart(), entry.chunkEnd());
                return entry;
            });
        }

        @Override
        public void close() {
            rows.close();
        }
    }

    /**
     * Loads the host-hit pages (contract §11.3): page {@code p} is written by {@code owner(p)} into
     * {@code localPage(p)} (every rank when replicated), each pool for all layers, after the
     * page's token locs pass page-aligned validation (contract §9).
     */
    private void loadHostPages(RequestState state) {
        HostPrefixSource host = java.util.Objects.requireNonNull(group.hostCache(), "host pages were admitted without a host cache");
        int ps = group.ownership().pageSize();
        int first = state.prefixTokens() / ps;
        for (int pos = first; pos < first + state.hostPages(); pos++) {
            long[] locs = state.locs((long) pos * ps, (long) (pos + 1) * ps);
            PageGroups.validatePageAlignedTokenIndices(locs, ps, "hicache load req " + state.id() + " pos " + pos);
            int page = state.table().page(pos);
            byte[] hash = state.pageHashes().get(pos);
            byte[] kv = host.payload(hash, HiCachePool.KV);
            byte[] index = host.payload(hash, HiCachePool.INDEXER);
            RankStores stores = group.stores().countedAs(STAGE);
            long physical = stores.physicalPage(page);
            for (int r : stores.ranksStoring(page)) {
                putPage(stores.rank(r), physical, kv, index);
            }
            PageStore reference = stores.reference();
            if (reference != null) {
                putPage(reference, page, kv, index);
            }
        }
    }

    private static void putPage(PageStore store, long page, byte[] kv, byte[] index) {
        store.writePage(KvComponent.MLA, page, kv);
        store.writePage(KvComponent.INDEX, page, index);
    }

    /**
     * Debug mode's owner-write check: a row rank {@code rank} stores at {@code row} is the row of
     * token loc {@code loc} (contract §4.4), i.e. the ownership map sends it back to that loc.
     *
     * @throws org.kvflow.core.DiagnosticCheckException naming the request, the loc, the rank and the row
     */
    static void checkOwnerRow(OwnershipMap ownership, long loc, int rank, long row, String context) {
        int ps = ownership.pageSize();
        DebugMode.check(() -> ownership.pageId(rank, row / ps) * ps + row % ps == loc,
                () -> context + ": loc " + loc + " was written to rank " + rank + " row " + row + ", which holds loc "
                        + (ownership.pageId(rank, row / ps) * ps + row % ps));
    }

    private void writeChunk(KvModel model, ModelRows rows, RequestState state, long from, long to) {
        OwnershipMap ownership = group.ownership();
        RankStores stores = group.stores().countedAs(STAGE);
        int ps = ownership.pageSize();
        long[] locs = state.locs(0, to);
        long fullFrom = (from + ps - 1) / ps * ps;
        long fullTo = to / ps * ps;
        DebugMode.check(() -> fullTo <= fullFrom || PageGroups.validatePageAlignedTokenIndices(
                java.util.Arrays.copyOfRange(locs, (int) fullFrom, (int) fullTo), ps, "owner write req " + state.id()) > 0,
                () -> "owner write req " + state.id() + ": no page group");
        boolean checkRows = group.layout() == PoolLayout.SHARED && DebugMode.enabled();
        int n = Math.toIntExact(to - from);
        int[] tokenIds = new int[n];
        long[] positions = new long[n];
        for (int i = 0; i < n; i++) {
            positions[i] = from + i;
            tokenIds[i] = state.request().tokenId((int) positions[i]);
        }
        // tokens whose locs run on within one page are one run of rows on their owner
        List<Run> runs = new ArrayList<>();
        for (long t = from; t < to; ) {
            long loc = locs[(int) t];
            int count = 1;
            while (t + count < to && locs[(int) (t + count)] == loc + count && (loc + count) % ps != 0) {
                count++;
            }
            int page = Math.toIntExact(loc / ps);
            long row = stores.physicalPage(page) * ps + loc % ps;
            if (checkRows) {
                for (int r : stores.ranksStoring(page)) {
                    for (int k = 0; k < count; k++) {
                        checkOwnerRow(ownership, loc + k, r, row + k, "owner write req " + state.id());
                    }
                }
            }
            runs.add(new Run((int) (t - from), count, loc, row, page));
            t += count;
        }
        if (stores.reference() == null && StoreRows.reaches(stores.rank(0), device)) {
            storeInPlace(model, rows, stores, runs, tokenIds, positions);
        } else {
            storeFromHost(model, rows, stores, runs, tokenIds, positions);
        }
    }

    /**
     * Consecutive tokens of a chunk whose locs run on within one page: chunk tokens
     * {@code first .. first + count - 1}, logical loc {@code loc} onwards, physical row {@code row}
     * onwards on the ranks that store logical page {@code page}.
     */
    private record Run(int first, int count, long loc, long row, int page) {}

    /** Rows computed on the device and stored there by the page memory: one launch per layer, nothing crosses the host. */
    private static void storeInPlace(KvModel model, ModelRows rows, RankStores stores, List<Run> runs, int[] tokenIds, long[] positions) {
        RowWrites writes = new RowWrites();
        for (Run run : runs) {
            for (int r : stores.ranksStoring(run.page())) {
                for (int k = 0; k < run.count(); k++) {
                    writes.add(run.first() + k, r, run.row() + k);
                }
            }
        }
        List<PageStore> ranks = new ArrayList<>();
        for (int r = 0; r < stores.ranks(); r++) {
            ranks.add(stores.rank(r));
        }
        for (int l = 0; l < model.layerCount(); l++) {
            StoreRows.store(ranks, l, rows.onDevice(l, tokenIds, positions), writes);
        }
    }

    /** Rows brought to the host and written run by run into each rank's store (and the debug reference). */
    private static void storeFromHost(KvModel model, ModelRows rows, RankStores stores, List<Run> runs, int[] tokenIds, long[] positions) {
        KvLayout layout = model.layout();
        int dimI = layout.shape().indexDim();
        int blocks = KvLayout.tiles(dimI);
        int rowBytes = layout.mlaRowBytes();
        PageStore reference = stores.reference();
        for (int l = 0; l < model.layerCount(); l++) {
            HostRows chunk = rows.of(l, tokenIds, positions);
            for (Run run : runs) {
                for (int r : stores.ranksStoring(run.page())) {
                    putRows(stores.rank(r), l, run.row(), chunk, run.first(), run.count(), rowBytes, dimI, blocks);
                }
                if (reference != null) {
                    putRows(reference, l, run.loc(), chunk, run.first(), run.count(), rowBytes, dimI, blocks);
                }
            }
        }
    }

    /** Rows {@code i .. i + count - 1} of the chunk to rows {@code row ..} of one page of {@code store}. */
    private static void putRows(PageStore store, int l, long row, HostRows chunk, int i, int count, int rowBytes, int dimI,
                                int blocks) {
        store.writeMlaRows(l, row, chunk.mla(), i * rowBytes, count);
        store.writeIndexRows(l, row, chunk.indexCodes(), i * dimI, chunk.indexScales(), i * blocks, count);
    }
}

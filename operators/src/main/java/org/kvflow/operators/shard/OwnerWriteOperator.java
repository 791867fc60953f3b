package org.kvflow.operators.shard;

import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.gather.KvPageStore;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.RequestState;
import reactor.core.publisher.Flux;

/**
 * Computes each chunk's KV with the synthetic layer and stores it (SPEC §4.4 write rule): after
 * the CP all-gather every rank holds the whole chunk, and under shared KV rank {@code r} keeps only
 * the rows with {@code ownerOfLoc == r}, at {@code localRow(loc)}; replicated ranks keep every row
 * at {@code loc}. Without a model the stage passes batches through (page planning only).
 */
public final class OwnerWriteOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    private final KvGroup group;

    public OwnerWriteOperator(KvGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        KvModel model = group.model();
        if (model == null) {
            return upstream.name("kvflow.write");
        }
        return upstream.doOnNext(batch -> write(model, batch)).name("kvflow.write");
    }

    private void write(KvModel model, PrefillBatch batch) {
        for (PrefillBatch.Entry entry : batch.entries()) {
            RequestState state = entry.state();
            if (state.isInactive()) {
                continue;
            }
            try {
                writeChunk(model, state, entry.chunkStart(), entry.chunkStart() + entry.chunkLen());
            } catch (RuntimeException e) {
                state.fail(e);
                group.release(state, false);
            }
        }
    }

    private void writeChunk(KvModel model, RequestState state, long from, long to) {
        OwnershipMap ownership = group.ownership();
        boolean shared = group.layout() == PoolLayout.SHARED;
        KvLayout layout = model.layout();
        int ps = ownership.pageSize();
        int rowBytes = layout.mlaRowBytes();
        int indexPageBytes = (int) layout.indexPageBytes(ps);
        long[] locs = state.reqToToken();
        for (int l = 0; l < model.layerCount(); l++) {
            SyntheticNsaLayer layer = model.layer(l);
            for (long t = from; t < to; t++) {
                long loc = locs[(int) t];
                SyntheticNsaLayer.TokenKv kv = layer.key(state.request().tokenId((int) t), t);
                int firstRank = shared ? ownership.ownerOfLoc(loc) : 0;
                int lastRank = shared ? firstRank : ownership.cpSize() - 1;
                long row = shared ? ownership.localRow(loc) : loc;
                for (int r = firstRank; r <= lastRank; r++) {
                    KvPageStore store = group.rankStore(r);
                    MlaRows.encode(kv.latent(), kv.rope(), layout, store.mla(l), Math.toIntExact(row * rowBytes));
                    IndexRows.encode(kv.indexKey(), ps, (int) (row % ps), store.index(l), Math.toIntExact(row / ps * indexPageBytes));
                }
            }
        }
    }
}

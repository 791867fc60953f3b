package org.kvflow.operators.materialize;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.operators.CpSharedKvBatchException;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.RequestState;
import reactor.core.publisher.Flux;

/**
 * The materialization stage (SPEC §7): per batch, the SPEC §6.4 fail-fast on the shared-KV path,
 * page-aligned validation of every request's token row, the full view of the referenced pages,
 * and attention on it for the sampled query positions, on a kernel device. A request whose row
 * fails validation fails alone (pages freed); the rest of the batch goes on. Without a model it
 * validates only.
 */
public final class MaterializeOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    private final KvGroup group;
    private final QuerySampler sampler;
    private final FullViewMaterializer materializer;
    private final ViewAttention attention;

    /** Attention on the plain-Java kernel device. */
    public MaterializeOperator(KvGroup group, QuerySampler sampler) {
        this(group, sampler, Devices.java());
    }

    /** @param device where the attention kernels run (indexer scores and top-k, sparse attention) */
    public MaterializeOperator(KvGroup group, QuerySampler sampler, Device device) {
        this.group = Objects.requireNonNull(group, "group");
        this.sampler = Objects.requireNonNull(sampler, "sampler");
        this.materializer = new FullViewMaterializer(group);
        this.attention = new ViewAttention(Objects.requireNonNull(device, "device"));
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        return upstream.doOnNext(this::materialize).doFinally(signal -> attention.close()).name("kvflow.materialize");
    }

    private void materialize(PrefillBatch batch) {
        List<PrefillBatch.Entry> active = new ArrayList<>();
        for (PrefillBatch.Entry entry : batch.entries()) {
            if (!entry.state().isInactive()) {
                active.add(entry);
            }
        }
        CpSharedKvConfig config = group.config();
        if (group.layout() == PoolLayout.SHARED && active.size() > 1 && !(config.sharedKv() && config.bsGt1())) {
            CpSharedKvBatchException error = new CpSharedKvBatchException(active.size());
            active.forEach(entry -> fail(entry.state(), error));
            return;
        }
        List<PrefillBatch.Entry> valid = new ArrayList<>();
        List<long[]> tables = new ArrayList<>();
        for (PrefillBatch.Entry entry : active) {
            try {
                tables.add(materializer.referencedPages(entry.state()));
                valid.add(entry);
            } catch (RuntimeException e) {
                fail(entry.state(), e);
            }
        }
        KvModel model = group.model();
        if (model == null || valid.isEmpty()) {
            return;
        }
        FullView view;
        try {
            view = materializer.gather(tables);
        } catch (RuntimeException e) { // the batch's view cannot be trusted (a diagnostic check): its requests fail, later batches go on
            valid.forEach(entry -> fail(entry.state(), e));
            return;
        }
        try (view) {
            for (int i = 0; i < valid.size(); i++) {
                PrefillBatch.Entry entry = valid.get(i);
                long[] positions = sampler.positions(entry.state(), entry.chunkStart(), entry.chunkStart() + entry.chunkLen());
                try {
                    attention.run(model, view, tables.get(i), entry.state(), positions);
                } catch (RuntimeException e) {
                    fail(entry.state(), e);
                }
            }
        }
    }

    private void fail(RequestState state, Throwable error) {
        state.fail(error);
        group.release(state, false);
    }
}

package org.kvflow.operators.materialize;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.operators.CpSharedKvBatchException;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.model.KvModel;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.stage.BatchStage;
import org.kvflow.operators.stage.StageOperator;
import org.kvflow.operators.stage.StageRunner;
import reactor.core.publisher.Flux;

/**
 * The materialization stage (contract §7): per batch, the contract §6.4 fail-fast on the shared-KV path,
 * page-aligned validation of every request's token row, the full view of the referenced pages,
 * and attention on it for the sampled query positions, on a kernel device; each entry leaves with
 * its chunk's attention outputs. A request whose row fails validation fails alone; the rest of the
 * batch goes on. With the pages-only model it validates only; otherwise the model's consumer attends.
 */
public final class MaterializeOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    /** The stage's operator name, under which its host traffic is counted. */
    public static final String STAGE = "kvflow.materialize";

    private final KvGroup group;
    private final QuerySampler sampler;
    private final FullViewMaterializer materializer;
    private final Device device;

    /**
     * Attention on the plain-Java kernel device.
     *
     * @param group   the group whose rank stores the views are gathered from
     * @param sampler which query positions attention evaluates
     */
    public MaterializeOperator(KvGroup group, QuerySampler sampler) {
        this(group, sampler, Devices.java());
    }

    /**
     * Attention on {@code device}.
     *
     * @param group   the group whose rank stores the views are gathered from
     * @param sampler which query positions attention evaluates
     * @param device  where the attention kernels run (indexer scores and top-k, sparse attention)
     */
    public MaterializeOperator(KvGroup group, QuerySampler sampler, Device device) {
        this(group, sampler, device, false);
    }

    /**
     * Attention on {@code device}, on views gathered or, with {@code inPlace}, read in place through
     * the rank stores' virtual view ({@link FullViewMaterializer#FullViewMaterializer(KvGroup, boolean)}).
     *
     * @param group   the group whose rank stores the views come from
     * @param sampler which query positions attention evaluates
     * @param device  where the attention kernels run
     * @param inPlace read the owners' pages in place instead of gathering them
     */
    public MaterializeOperator(KvGroup group, QuerySampler sampler, Device device, boolean inPlace) {
        this.group = Objects.requireNonNull(group, "group");
        this.sampler = Objects.requireNonNull(sampler, "sampler");
        this.materializer = new FullViewMaterializer(group, inPlace);
        this.device = Objects.requireNonNull(device, "device");
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        return new StageOperator(upstream, new StageRunner(group, STAGE), () -> new MaterializeStage(new ViewAttention(group.model(), device)));
    }

    /** One run's materialization: the attention kernels it holds are freed when the run ends. */
    private final class MaterializeStage implements BatchStage {
        private final ViewAttention attention;

        MaterializeStage(ViewAttention attention) {
            this.attention = attention;
        }

        @Override
        public PrefillBatch apply(PrefillBatch batch) {
            int active = batch.active().size();
            CpSharedKvConfig config = group.config();
            if (group.layout() == PoolLayout.SHARED && active > 1 && !(config.sharedKv() && config.bsGt1())) {
                return batch.failActive(new CpSharedKvBatchException(active));
            }
            Map<String, long[]> tables = new HashMap<>();
            PrefillBatch validated = batch.mapActive(entry -> {
                tables.put(entry.id(), materializer.referencedPages(entry.state()));
                return entry;
            });
            KvModel model = group.model();
            List<long[]> viewTables = new ArrayList<>();
            validated.active().forEach(entry -> viewTables.add(tables.get(entry.id())));
            if (!model.storesBytes() || viewTables.isEmpty()) {
                return validated;
            }
            // a view that cannot be trusted (a diagnostic check) throws: the batch's requests fail, later batches go on
            try (FullView view = materializer.gather(viewTables)) {
                return validated.mapActive(entry -> entry.withAttention(attention.run(view, tables.get(entry.id()), entry.state(),
                        sampler.positions(entry.state(), entry.chunkStart(), entry.chunkEnd()))));
            }
        }

        @Override
        public void close() {
            attention.close();
        }
    }
}

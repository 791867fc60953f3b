package org.kvflow.operators;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.PageMemories;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.operators.shard.ShardOperator;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.TransferBackend;
import reactor.core.publisher.Flux;
import org.kvflow.kernels.rows.DevicePools;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.group.KvGroup;


/** Test fixtures: configs, seeded workloads, and pipelines wired to an in-memory decode receiver. */
public final class Workloads {
    /** Toy NSA widths: every code path of the real ones at a fraction of the cost. */
    public static final NsaDims TOY = new NsaDims(16, 40, 8, 24, 12);

    private Workloads() {}

    /** Shared KV, in-seq CP, bs>1 on with {@code maxRequests}, toy-mla at page size {@code ps}. */
    public static CpSharedKvConfig sharedBsGt1(int cp, int ps, int maxRequests, @Nullable Long chunk) {
        return CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(cp).pageSize(ps).model(ModelKind.TOY_MLA)
                .sharedKv(true).bsGt1(true).maxRequests((long) maxRequests).chunkedPrefillSize(chunk).build();
    }

    /**
     * {@code count} prompts: fresh ones of 1..{@code maxLen} tokens, and about a third that continue
     * an earlier prompt of at least 64 tokens with up to {@code maxLen/2} more tokens (prefix hits once it finished).
     */
    public static List<PrefillRequest> requests(long seed, int count, int maxLen, int vocabulary) {
        SplittableRandom random = new SplittableRandom(seed);
        List<int[]> prompts = new ArrayList<>();
        List<PrefillRequest> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            List<int[]> longEnough = prompts.stream().filter(p -> p.length >= 64).toList();
            int[] base = !longEnough.isEmpty() && random.nextInt(3) == 0 ? longEnough.get(random.nextInt(longEnough.size())) : new int[0];
            int len = base.length + 1 + random.nextInt(base.length == 0 ? maxLen : Math.max(1, maxLen / 2));
            int[] tokens = new int[len];
            int copied = base.length;
            System.arraycopy(base, 0, tokens, 0, copied);
            for (int t = copied; t < len; t++) {
                tokens[t] = random.nextInt(vocabulary);
            }
            prompts.add(tokens);
            out.add(new PrefillRequest("r" + i, tokens, random.nextInt(64)));
        }
        return out;
    }

    /** A pipeline and what it writes into, for one layout. */
    public record Rig(KvGroup group, DecodeReceiver receiver, CpPrefillPipeline pipeline) {}

    /**
     * The system property naming the device of {@link #rig}'s kernels and pools ({@code java} when unset):
     * {@code -Dkvflow.test.device=cuda} runs the same tests with the pools in GPU memory on the GPU machine.
     */
    public static final String DEVICE_PROPERTY = "kvflow.test.device";

    /** The device {@link #DEVICE_PROPERTY} names ({@code java} when unset). */
    public static Device testDevice() {
        return Devices.select(System.getProperty(DEVICE_PROPERTY, "java"));
    }

    public static Rig rig(CpSharedKvConfig config, PoolLayout layout, int pagesPerRank, @Nullable SyntheticModel model,
                          boolean prefixCaching, QuerySampler sampler, int decodePages) {
        Device device = testDevice();
        KvGroup.Builder builder = KvGroup.builder(config, layout, PoolCapacity.ofPages(pagesPerRank, config.pageSize())).prefixCaching(prefixCaching)
                .memory(DevicePools.memoryFor(device));
        KvGroup group = (model == null ? builder : builder.model(model)).build();
        DecodeReceiver receiver = new DecodeReceiver(decodePages, config.pageSize(), model == null ? null : model.layout());
        CpPrefillPipeline pipeline = new CpPrefillPipeline(group, 32, CpPrefillPipeline.standardStages(group, sampler, device),
                new InMemoryTransferBackend(receiver), null, batch -> { }, reactor.core.publisher.Mono::subscribe);
        return new Rig(group, receiver, pipeline);
    }

    /**
     * Admits each request by hand as one batch of whole requests (the first {@code hostTokens[i]}
     * tokens of request {@code i} as a host-cache hit) and runs it through own; the write stage is
     * left to the caller, who may damage the batch first.
     */
    public static PrefillBatch owned(KvGroup group, List<PrefillRequest> requests, long... hostTokens) {
        List<PrefillBatch.Entry> entries = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            PrefillRequest request = requests.get(i);
            long host = i < hostTokens.length ? hostTokens[i] : 0;
            RequestState state = group.track(request);
            if (!group.reserve(state, host, request.seqLen() - host)) {
                throw new IllegalStateException("no room for " + request.id());
            }
            entries.add(new PrefillBatch.Entry(state, host, request.seqLen() - host, true));
        }
        return Flux.just(PrefillBatch.admitted(0, entries)).transform(new ShardOperator(group)).blockLast();
    }

    /** {@link #owned} then the write stage: a batch ready to materialize and transfer. */
    public static PrefillBatch written(KvGroup group, List<PrefillRequest> requests) {
        return Flux.just(owned(group, requests)).transform(new OwnerWriteOperator(group)).blockLast();
    }

    public static SyntheticModel toyModel(KvDtype dtype, int layers) {
        return new SyntheticModel(TOY, dtype, layers, 2026);
    }

    /** The standard stages, then {@code backup}, then transfer through {@code backend}; no query sampling. */
    public static CpPrefillPipeline withBackup(KvGroup group, TransferBackend backend, Function<Flux<PrefillBatch>, Flux<PrefillBatch>> backup) {
        List<CpPrefillPipeline.Stage> stages = new ArrayList<>(CpPrefillPipeline.standardStages(group, QuerySampler.NONE, Devices.java()));
        stages.add(backup::apply);
        return new CpPrefillPipeline(group, 8, stages, backend, null, b -> { }, reactor.core.publisher.Mono::subscribe);
    }
}

package org.kvflow.kernels.aparapi;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.kvflow.kernels.api.KernelRef;

/**
 * The Aparapi twin of each {@code *Kernels} method that has one: the {@code opencl} backend runs
 * them through Aparapi, the {@code cuda} backend compiles the same twins' OpenCL C for CUDA. For
 * kernel backends, not for callers of the task-graph API.
 */
public final class Twins {
    private static final Map<String, Supplier<AparapiTask>> TWINS = Map.of(
            "org.kvflow.kernels.gather.GatherKernels.gatherPages", () -> new PageMoveAparapi(PageMoveAparapi.GATHER),
            "org.kvflow.kernels.gather.GatherKernels.scatterPages", () -> new PageMoveAparapi(PageMoveAparapi.SCATTER),
            "org.kvflow.kernels.gather.GatherKernels.copyPages", () -> new PageMoveAparapi(PageMoveAparapi.COPY),
            "org.kvflow.kernels.nsa.IndexerKernels.scoreFp8", IndexScoreAparapi::new,
            "org.kvflow.kernels.nsa.IndexerKernels.topKRows", TopKAparapi::new,
            "org.kvflow.kernels.nsa.AttentionKernels.attendBatch", AttendAparapi::new,
            "org.kvflow.kernels.nsa.AttentionKernels.gatherRows", GatherRowsAparapi::new,
            "org.kvflow.kernels.quant.QuantKernels.quantizeTiles", QuantizeAparapi::new,
            "org.kvflow.kernels.quant.QuantKernels.dequantizeTiles", DequantizeAparapi::new,
            "org.kvflow.kernels.nsa.SyntheticKernels.keys", SyntheticKeysAparapi::new);

    private Twins() {}

    /** A new twin of {@code kernel}, or empty when it has none. */
    public static Optional<Twin> of(KernelRef kernel) {
        return Optional.ofNullable(TWINS.get(kernel.toString())).map(s -> new Twin(s.get()));
    }

    static Optional<AparapiTask> task(KernelRef kernel) {
        return Optional.ofNullable(TWINS.get(kernel.toString())).map(Supplier::get);
    }

    /** The kernels that have a twin, {@code package.Class.method}. */
    public static Set<String> kernels() {
        return TWINS.keySet();
    }
}

package org.kvflow.kernels.aparapi;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.kvflow.kernels.api.KernelRef;

/**
 * The Aparapi twin of each {@code *Kernels} method that has one: the {@code opencl} backend runs
 * them through Aparapi, the {@code cuda} backend compiles the same twins' OpenCL C for CUDA, or a
 * twin of its own where the translation maps more than Aparapi's OpenCL does (top-k with atomic
 * adds on local memory). For kernel backends, not for callers of the task-graph API.
 */
public final class Twins {
    private static final Map<String, Supplier<AparapiTask>> TWINS = Map.ofEntries(
            Map.entry("org.kvflow.kernels.gather.GatherKernels.gatherPages", () -> new PageMoveAparapi(PageMoveAparapi.GATHER)),
            Map.entry("org.kvflow.kernels.gather.GatherKernels.scatterPages", () -> new PageMoveAparapi(PageMoveAparapi.SCATTER)),
            Map.entry("org.kvflow.kernels.gather.GatherKernels.copyPages", () -> new PageMoveAparapi(PageMoveAparapi.COPY)),
            Map.entry("org.kvflow.kernels.nsa.IndexerKernels.scoreFp8", IndexScoreAparapi::new),
            Map.entry("org.kvflow.kernels.nsa.IndexerKernels.scoreHeads", ScoreHeadsAparapi::new),
            Map.entry("org.kvflow.kernels.nsa.IndexerKernels.topKRows", TopKByColumns::new),
            Map.entry("org.kvflow.kernels.nsa.AttentionKernels.attendBatch", AttendBatchAparapi::new),
            Map.entry("org.kvflow.kernels.nsa.AttentionKernels.attendSelected", AttendSelectedAparapi::new),
            Map.entry("org.kvflow.kernels.quant.QuantKernels.quantizeTiles", QuantizeAparapi::new),
            Map.entry("org.kvflow.kernels.quant.QuantKernels.dequantizeTiles", DequantizeAparapi::new),
            Map.entry("org.kvflow.kernels.nsa.SyntheticKernels.keys", SyntheticKeysAparapi::new),
            Map.entry("org.kvflow.kernels.linalg.MatrixKernels.gemm", GemmAparapi::new),
            Map.entry("org.kvflow.kernels.linalg.MatrixKernels.softmaxRows", () -> new RowsAparapi(RowsAparapi.SOFTMAX)),
            Map.entry("org.kvflow.kernels.linalg.RowKernels.rmsNormRows", () -> new RowsAparapi(RowsAparapi.RMS)),
            Map.entry("org.kvflow.kernels.linalg.RowKernels.layerNormRows", () -> new RowsAparapi(RowsAparapi.LAYER)),
            Map.entry("org.kvflow.kernels.linalg.RowKernels.ropeRows", () -> new RowsAparapi(RowsAparapi.ROPE)),
            Map.entry("org.kvflow.kernels.linalg.RowKernels.hadamardRows", () -> new RowsAparapi(RowsAparapi.HADAMARD)));

    /** Twins the cuda translation compiles instead: they use what only it maps (atomic adds on local memory). */
    private static final Map<String, Supplier<AparapiTask>> CUDA_TWINS = Map.of(
            "org.kvflow.kernels.nsa.IndexerKernels.topKRows", TopKByAtomics::new);

    private Twins() {}

    /** A new twin of {@code kernel} for the cuda translation, or empty when it has none. */
    public static Optional<Twin> forCuda(KernelRef kernel) {
        String name = kernel.toString();
        return Optional.ofNullable(CUDA_TWINS.getOrDefault(name, TWINS.get(name))).map(s -> new Twin(s.get()));
    }

    static Optional<AparapiTask> task(KernelRef kernel) {
        return Optional.ofNullable(TWINS.get(kernel.toString())).map(Supplier::get);
    }

    /** The kernels that have a twin, {@code package.Class.method}. */
    public static Set<String> kernels() {
        return TWINS.keySet();
    }
}

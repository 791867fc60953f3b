package org.kvflow.deepseek;

import java.util.Arrays;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.linalg.GemmShape;
import org.kvflow.kernels.linalg.MatrixKernels;
import org.kvflow.kernels.linalg.RowKernels;
import org.kvflow.kernels.nsa.GrowingBuffers;
import org.kvflow.kernels.nsa.KeyFloats;

/**
 * One layer's key side on a kernel device, one task graph: the input norm, {@code kv_a_proj} and
 * the latent's RMSNorm with the rope part rotated; {@code indexer.wk}, LayerNorm, rope on its first
 * {@code R} values and the Hadamard rotation. The weights go to the device with the first chunk;
 * buffers grow with the chunks ({@link GrowingBuffers}). Not thread-safe; close to free them.
 */
final class V32Keys implements AutoCloseable {
    private final V32Config c;
    private final V32Weights w;
    private final Device device;
    private final FloatArray inputNorm;
    private final FloatArray kvA;
    private final FloatArray kvNorm;
    private final FloatArray wk;
    private final FloatArray kNorm;
    private final FloatArray kBias;
    private final FloatArray freqs;
    private final IntArray noRows = new IntArray(1);
    private final IntArray xShape = new IntArray(4);
    private final IntArray latentShape = new IntArray(4);
    private final IntArray kvRope = new IntArray(7);
    private final IntArray kShape = new IntArray(4);
    private final IntArray kRope = new IntArray(7);
    private final IntArray gKv = new IntArray(GemmShape.INTS);
    private final IntArray gK = new IntArray(GemmShape.INTS);
    private final GrowingBuffers<Buffers> buffers;

    private record Buffers(FloatArray x, IntArray positions, FloatArray kv, FloatArray k, ExecutionPlan plan) {}

    V32Keys(V32Config c, V32Weights w, Rope rope, Device device) {
        this.c = c;
        this.w = w;
        this.device = device;
        this.inputNorm = FloatArray.fromArray(w.inputNorm());
        this.kvA = FloatArray.fromArray(w.kvA());
        this.kvNorm = FloatArray.fromArray(w.kvNorm());
        this.wk = FloatArray.fromArray(w.indexK());
        this.kNorm = FloatArray.fromArray(w.indexKNorm());
        this.kBias = FloatArray.fromArray(w.indexKBias());
        this.freqs = FloatArray.fromArray(rope.freqs());
        this.buffers = new GrowingBuffers<>(1, this::build, Buffers::plan, n -> n[0] * c.hidden() <= Integer.MAX_VALUE - 8);
    }

    /** The key floats of tokens {@code (ids[i], positions[i])}. */
    KeyFloats keys(int[] ids, long[] positions) {
        if (ids.length != positions.length) {
            throw new IllegalArgumentException(ids.length + " token ids but " + positions.length + " positions");
        }
        int n = ids.length;
        int cl = c.kvLora();
        int r = c.rope();
        int di = c.indexDim();
        if (n == 0) {
            return new KeyFloats(0, new float[0], new float[0], new float[0]);
        }
        Buffers b = buffers.atLeast(n);
        Arrays.fill(b.x().toHeapArray(), 0f);
        w.embed(ids, positions, b.x().toHeapArray());
        for (int t = 0; t < n; t++) {
            b.positions().set(t, Math.toIntExact(positions[t]));
        }
        set(xShape, n, c.hidden(), c.hidden(), 0);
        set(latentShape, n, cl, cl + r, 0);
        set(kvRope, n, r, cl + r, cl, 1, cl + r, cl);
        set(kShape, n, di, di, 0);
        set(kRope, n, r, di, 0, 1, di, 0);
        copy(GemmShape.plain(n, cl + r, c.hidden()).toArray(), gKv);
        copy(GemmShape.plain(n, di, c.hidden()).toArray(), gK);
        b.plan().execute();
        float[] kv = b.kv().toHeapArray();
        float[] latent = new float[n * cl];
        float[] ropePart = new float[n * r];
        for (int t = 0; t < n; t++) {
            System.arraycopy(kv, t * (cl + r), latent, t * cl, cl);
            System.arraycopy(kv, t * (cl + r) + cl, ropePart, t * r, r);
        }
        return new KeyFloats(n, latent, ropePart, Arrays.copyOf(b.k().toHeapArray(), n * di));
    }

    /** Arrays for {@code capacity = {tokens}} and the plan over them. */
    private Buffers build(long[] capacity) {
        int cap = (int) capacity[0];
        FloatArray x = new FloatArray(cap * c.hidden());
        IntArray positions = new IntArray(cap);
        FloatArray kv = new FloatArray(cap * (c.kvLora() + c.rope()));
        FloatArray k = new FloatArray(cap * c.indexDim());
        TaskGraph graph = new TaskGraph("v32Keys")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, inputNorm, kvA, kvNorm, wk, kNorm, kBias, freqs, noRows)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, x, positions, xShape, latentShape, kvRope, kShape, kRope, gKv, gK)
                .task("inputNorm", RowKernels::rmsNormRows, x, inputNorm, xShape)
                .task("kvA", MatrixKernels::gemm, x, kvA, noRows, gKv, kv)
                .task("kvNorm", RowKernels::rmsNormRows, kv, kvNorm, latentShape)
                .task("kvRope", RowKernels::ropeRows, kv, kv, freqs, positions, kvRope)
                .task("wk", MatrixKernels::gemm, x, wk, noRows, gK, k)
                .task("kNorm", RowKernels::layerNormRows, k, kNorm, kBias, kShape)
                .task("kRope", RowKernels::ropeRows, k, k, freqs, positions, kRope)
                .task("hadamard", RowKernels::hadamardRows, k, kShape)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, kv, k);
        return new Buffers(x, positions, kv, k, new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    static void set(IntArray a, int... v) {
        for (int i = 0; i < v.length; i++) {
            a.set(i, v[i]);
        }
    }

    static void copy(IntArray from, IntArray to) {
        System.arraycopy(from.toHeapArray(), 0, to.toHeapArray(), 0, from.getSize());
    }

    @Override
    public void close() {
        buffers.close();
    }
}

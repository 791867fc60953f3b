package org.kvflow.deepseek;

import java.util.Arrays;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.linalg.GemmShape;
import org.kvflow.kernels.linalg.MatrixKernels;
import org.kvflow.kernels.linalg.RowKernels;
import org.kvflow.kernels.nsa.GrowingBuffers;
import org.kvflow.kernels.nsa.IndexerKernels;
import org.kvflow.kernels.quant.QuantKernels;
import org.kvflow.model.LayerView;

/**
 * One layer's query side and attention on a kernel device, one task graph run per block of
 * {@link #BLOCK} queries: the q LoRA path and MLA's absorption of {@code W_UK}; the indexer's
 * queries (rope, Hadamard, fp8 per head, dequantised by their scale) scored against every key with
 * {@link IndexerKernels#scoreHeads} and cut to the top-k; attention of all heads over the selected
 * rows (two batched products around a softmax, the rows read where the view left them), then
 * {@code W_UV} and {@code o_proj}. The view's keys are read once per request and layer: in place
 * where the view reaches the device. Weights go to the device with the first block; key buffers
 * grow with the requests ({@link GrowingBuffers}). Not thread-safe; close to free them.
 */
final class V32Attention implements AutoCloseable {
    /** Queries per graph run. */
    static final int BLOCK = 64;

    private final V32Config c;
    private final V32Weights w;
    private final Device device;
    private final Weights weights;
    private final Shapes shapes = new Shapes();
    private final GrowingBuffers<Buffers> buffers;

    /** The layer's weights as device arrays, and the constants. */
    private record Weights(FloatArray inputNorm, FloatArray qA, FloatArray qNorm, FloatArray qB, FloatArray kvB, FloatArray iqB,
                           FloatArray wProj, FloatArray o, FloatArray freqs, FloatArray scale, IntArray noRows) {}

    /** Every shape array of the graph; the ones that depend on the key count are set per request. */
    private static final class Shapes {
        final IntArray x = new IntArray(4);
        final IntArray qr = new IntArray(4);
        final IntArray qRope = new IntArray(7);
        final IntArray qiRope = new IntArray(7);
        final IntArray qiRows = new IntArray(4);
        final IntArray score = new IntArray(4);
        final IntArray top = new IntArray(3);
        final IntArray softmax = new IntArray(3);
        final IntArray gQr = new IntArray(GemmShape.INTS);
        final IntArray gQ = new IntArray(GemmShape.INTS);
        final IntArray gAbsorb = new IntArray(GemmShape.INTS);
        final IntArray gQi = new IntArray(GemmShape.INTS);
        final IntArray gW = new IntArray(GemmShape.INTS);
        final IntArray gLogits = new IntArray(GemmShape.INTS);
        final IntArray gMix = new IntArray(GemmShape.INTS);
        final IntArray gValues = new IntArray(GemmShape.INTS);
        final IntArray gOut = new IntArray(GemmShape.INTS);
    }

    /** The arrays of one key capacity and the plan over them. */
    private record Buffers(FloatArray x, IntArray positions, IntArray seen, IntArray selectedCounts, ByteArray keyCodes, FloatArray keyScales,
                           FloatArray keyRows, IntArray selected, FloatArray out, ExecutionPlan plan) {}

    V32Attention(V32Config c, V32Weights w, Rope rope, Device device) {
        this.c = c;
        this.w = w;
        this.device = device;
        float[] proj = w.indexWeights().clone();
        float fold = (float) (Math.pow(c.indexHeads(), -0.5) * Math.pow(c.indexDim(), -0.5));
        for (int i = 0; i < proj.length; i++) {
            proj[i] = proj[i] * fold; // weights_proj · H^-½ · I^-½; each head's query scale rides in its dequantised query
        }
        this.weights = new Weights(FloatArray.fromArray(w.inputNorm()), FloatArray.fromArray(w.qA()), FloatArray.fromArray(w.qNorm()),
                FloatArray.fromArray(w.qB()), FloatArray.fromArray(w.kvB()), FloatArray.fromArray(w.indexQB()), FloatArray.fromArray(proj),
                FloatArray.fromArray(w.o()), FloatArray.fromArray(rope.freqs()), FloatArray.fromArray(new float[] {c.softmaxScale()}),
                new IntArray(1));
        int q = BLOCK;
        int width = c.kvLora() + c.rope();
        int qk = c.qkHead();
        int heads = c.heads();
        V32Keys.set(shapes.x, q, c.hidden(), c.hidden(), 0);
        V32Keys.set(shapes.qr, q, c.qLora(), c.qLora(), 0);
        V32Keys.set(shapes.qRope, q * heads, c.rope(), qk, c.nope(), heads, width, c.kvLora());
        V32Keys.set(shapes.qiRope, q * c.indexHeads(), c.rope(), c.indexDim(), 0, c.indexHeads(), c.indexDim(), 0);
        V32Keys.set(shapes.qiRows, q * c.indexHeads(), c.indexDim(), c.indexDim(), 0);
        V32Keys.set(shapes.softmax, q * heads, c.topk(), heads);
        V32Keys.copy(GemmShape.plain(q, c.qLora(), c.hidden()).toArray(), shapes.gQr);
        V32Keys.copy(GemmShape.plain(q, heads * qk, c.qLora()).toArray(), shapes.gQ);
        int kvRow = (c.nope() + c.v()) * c.kvLora();
        V32Keys.copy(new GemmShape(q, c.kvLora(), c.nope(), heads, heads * qk, c.kvLora(), heads * width, 0, 0, 0, qk, kvRow, width, true,
                false, 0).toArray(), shapes.gAbsorb);
        V32Keys.copy(GemmShape.plain(q, c.indexHeads() * c.indexDim(), c.qLora()).toArray(), shapes.gQi);
        V32Keys.copy(GemmShape.plain(q, c.indexHeads(), c.hidden()).toArray(), shapes.gW);
        V32Keys.copy(new GemmShape(heads, c.topk(), width, q, width, width, c.topk(), 0, 0, 0, heads * width, 0, heads * c.topk(), false, true,
                c.topk()).toArray(), shapes.gLogits);
        V32Keys.copy(new GemmShape(heads, c.kvLora(), c.topk(), q, c.topk(), width, c.kvLora(), 0, 0, 0, heads * c.topk(), 0,
                heads * c.kvLora(), true, true, c.topk()).toArray(), shapes.gMix);
        V32Keys.copy(new GemmShape(q, c.v(), c.kvLora(), heads, heads * c.kvLora(), c.kvLora(), heads * c.v(), 0, c.nope() * c.kvLora(), 0,
                c.kvLora(), kvRow, c.v(), false, false, 0).toArray(), shapes.gValues);
        V32Keys.copy(GemmShape.plain(q, c.hidden(), heads * c.v()).toArray(), shapes.gOut);
        long widest = Math.max(BLOCK, (long) c.kvLora() + c.rope());
        this.buffers = new GrowingBuffers<>(1, this::build, Buffers::plan, n -> n[0] * widest <= Integer.MAX_VALUE - 8);
    }

    /**
     * Attention for the queries at {@code positions} (ascending) of a request whose token ids are
     * {@code ids}, over the view's keys.
     */
    Attended attend(LayerView view, int[] ids, long[] positions) {
        int nq = positions.length;
        float[][] out = new float[nq][];
        int[][] selected = new int[nq][];
        if (nq == 0) {
            return new Attended(out, selected);
        }
        int keys = view.keyCount();
        Buffers b = buffers.atLeast(keys);
        V32Keys.set(shapes.score, c.indexHeads(), c.indexDim(), BLOCK, keys);
        V32Keys.set(shapes.top, BLOCK, keys, c.topk());
        boolean inPlace = view.inPlace();
        if (inPlace) {
            view.readIndexKeys(region(b, b.keyCodes()), region(b, b.keyScales()));
            long[] all = new long[keys];
            Arrays.setAll(all, j -> j);
            view.readKeyRows(all, region(b, b.keyRows()));
        } else {
            System.arraycopy(view.indexCodes(), 0, b.keyCodes().toHeapArray(), 0, keys * c.indexDim());
            System.arraycopy(view.indexScales(), 0, b.keyScales().toHeapArray(), 0, keys);
            float[] rows = view.keyRows();
            System.arraycopy(rows, 0, b.keyRows().toHeapArray(), 0, rows.length);
        }
        int hidden = c.hidden();
        for (int from = 0; from < nq; from += BLOCK) {
            int n = Math.min(BLOCK, nq - from);
            Arrays.fill(b.x().toHeapArray(), 0f);
            int[] blockIds = new int[n];
            long[] blockPositions = Arrays.copyOfRange(positions, from, from + n);
            for (int i = 0; i < BLOCK; i++) {
                long t = i < n ? positions[from + i] : 0;
                if (t >= keys) {
                    throw new IllegalArgumentException("query position " + t + " outside the view's " + keys + " keys");
                }
                if (i < n) {
                    blockIds[i] = ids[(int) t];
                }
                b.positions().set(i, (int) t);
                b.seen().set(i, (int) t + 1);
                b.selectedCounts().set(i, (int) Math.min(c.topk(), t + 1));
            }
            w.embed(blockIds, blockPositions, b.x().toHeapArray());
            if (inPlace) {
                b.plan().writtenOnDevice(b.keyCodes(), b.keyScales(), b.keyRows());
            }
            b.plan().execute().transferToHost(b.selected());
            for (int i = 0; i < n; i++) {
                out[from + i] = Arrays.copyOfRange(b.out().toHeapArray(), i * hidden, (i + 1) * hidden);
                selected[from + i] = Arrays.copyOfRange(b.selected().toHeapArray(), i * c.topk(), i * c.topk() + b.selectedCounts().get(i));
            }
        }
        return new Attended(out, selected);
    }

    private static DeviceRegion region(Buffers b, Object array) {
        return b.plan().deviceRegionToFill(array).orElseThrow(() -> new IllegalStateException("the layer's key arrays are not in device memory"));
    }

    /** Arrays for {@code capacity = {keys}} and the plan over them. */
    private Buffers build(long[] capacity) {
        int k = (int) capacity[0];
        int q = BLOCK;
        int heads = c.heads();
        int width = c.kvLora() + c.rope();
        int iq = q * c.indexHeads() * c.indexDim();
        FloatArray x = new FloatArray(q * c.hidden());
        IntArray positions = new IntArray(q);
        IntArray seen = new IntArray(q);
        IntArray selectedCounts = new IntArray(q);
        FloatArray qr = new FloatArray(q * c.qLora());
        FloatArray query = new FloatArray(q * heads * c.qkHead());
        FloatArray absorbed = new FloatArray(q * heads * width);
        FloatArray qi = new FloatArray(iq);
        FloatArray qiScales = new FloatArray(q * c.indexHeads());
        ByteArray qiCodes = new ByteArray(iq);
        FloatArray qiValues = new FloatArray(iq);
        FloatArray headWeights = new FloatArray(q * c.indexHeads());
        ByteArray keyCodes = new ByteArray(k * c.indexDim());
        FloatArray keyScales = new FloatArray(k);
        FloatArray keyRows = new FloatArray(k * width);
        FloatArray scores = new FloatArray(q * k);
        IntArray selected = new IntArray(q * c.topk());
        FloatArray logits = new FloatArray(q * heads * c.topk());
        FloatArray mix = new FloatArray(q * heads * c.kvLora());
        FloatArray values = new FloatArray(q * heads * c.v());
        FloatArray out = new FloatArray(q * c.hidden());
        Weights wt = weights;
        Shapes s = shapes;
        TaskGraph graph = new TaskGraph("v32Attention")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, wt.inputNorm(), wt.qA(), wt.qNorm(), wt.qB(), wt.kvB(), wt.iqB(), wt.wProj(), wt.o(),
                        wt.freqs(), wt.scale(), wt.noRows(), s.x, s.qr, s.qRope, s.qiRope, s.qiRows, s.softmax, s.gQr, s.gQ, s.gAbsorb, s.gQi, s.gW,
                        s.gLogits, s.gMix, s.gValues, s.gOut)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, x, positions, seen, selectedCounts, keyCodes, keyScales, keyRows, s.score, s.top)
                .task("inputNorm", RowKernels::rmsNormRows, x, wt.inputNorm(), s.x)
                .task("qA", MatrixKernels::gemm, x, wt.qA(), wt.noRows(), s.gQr, qr)
                .task("qNorm", RowKernels::rmsNormRows, qr, wt.qNorm(), s.qr)
                .task("qB", MatrixKernels::gemm, qr, wt.qB(), wt.noRows(), s.gQ, query)
                .task("absorb", MatrixKernels::gemm, query, wt.kvB(), wt.noRows(), s.gAbsorb, absorbed)
                .task("qRope", RowKernels::ropeRows, query, absorbed, wt.freqs(), positions, s.qRope)
                .task("indexQ", MatrixKernels::gemm, qr, wt.iqB(), wt.noRows(), s.gQi, qi)
                .task("indexRope", RowKernels::ropeRows, qi, qi, wt.freqs(), positions, s.qiRope)
                .task("indexHadamard", RowKernels::hadamardRows, qi, s.qiRows)
                .task("indexQuant", QuantKernels::quantizeTiles, qi, c.indexDim(), c.indexDim(), qiScales, qiCodes)
                .task("indexDequant", QuantKernels::dequantizeTiles, qiCodes, c.indexDim(), c.indexDim(), qiScales, qiValues)
                .task("headWeights", MatrixKernels::gemm, x, wt.wProj(), wt.noRows(), s.gW, headWeights)
                .task("scores", IndexerKernels::scoreHeads, qiValues, headWeights, keyCodes, keyScales, s.score, scores)
                .task("topK", IndexerKernels::topKRows, scores, seen, s.top, selected)
                .task("logits", MatrixKernels::gemm, absorbed, keyRows, selected, s.gLogits, logits)
                .task("softmax", MatrixKernels::softmaxRows, logits, wt.scale(), selectedCounts, s.softmax)
                .task("mix", MatrixKernels::gemm, logits, keyRows, selected, s.gMix, mix)
                .task("values", MatrixKernels::gemm, mix, wt.kvB(), wt.noRows(), s.gValues, values)
                .task("out", MatrixKernels::gemm, values, wt.o(), wt.noRows(), s.gOut, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out)
                .transferToHost(DataTransferMode.UNDER_DEMAND, selected);
        return new Buffers(x, positions, seen, selectedCounts, keyCodes, keyScales, keyRows, selected, out,
                new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    @Override
    public void close() {
        buffers.close();
    }
}

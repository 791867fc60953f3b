package org.kvflow.kernels.nsa;

import java.util.Objects;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * The key side of a synthetic NSA/MLA layer for a batch of tokens on a kernel device
 * ({@link SyntheticKernels#keys}): the same floats as {@link SyntheticNsaLayer#key}, bit for bit.
 * The weights go to the device once; buffers grow with the batch. Not thread-safe; close to free them.
 */
public final class SyntheticKeys implements AutoCloseable {
    private final SyntheticNsaLayer layer;
    private final Device device;
    private final FloatArray weights;
    private final IntArray shape = new IntArray(5);
    private final GrowingBuffers<Buffers> buffers;

    /** The device arrays of one capacity and the plan over them. */
    private record Buffers(LongArray seeds, FloatArray cosSin, FloatArray out, ExecutionPlan plan) {}

    public SyntheticKeys(SyntheticNsaLayer layer, Device device) {
        this.layer = Objects.requireNonNull(layer, "layer");
        this.device = Objects.requireNonNull(device, "device");
        this.weights = FloatArray.fromArray(layer.keyWeights());
        int width = layer.dims().latent() + layer.dims().rope() + layer.dims().index();
        this.buffers = new GrowingBuffers<>(1, this::build, Buffers::plan, c -> c[0] * width <= Integer.MAX_VALUE - 8);
    }

    /**
     * @return the key side of tokens {@code (tokenIds[i], positions[i])}
     * @throws IllegalArgumentException if the two lists differ in length or a position is negative
     */
    public KeyFloats keys(int[] tokenIds, long[] positions) {
        if (tokenIds.length != positions.length) {
            throw new IllegalArgumentException(tokenIds.length + " token ids but " + positions.length + " positions");
        }
        NsaDims dims = layer.dims();
        int n = tokenIds.length;
        int c = dims.latent();
        int r = dims.rope();
        int i = dims.index();
        int width = c + r + i;
        Buffers b = buffers.atLeast(n);
        for (int t = 0; t < n; t++) {
            if (positions[t] < 0) {
                throw new IllegalArgumentException("token " + t + ": position " + positions[t] + " is negative");
            }
            b.seeds().set(t, layer.inputSeed(tokenIds[t], positions[t]));
            System.arraycopy(layer.ropeCosSin(positions[t]), 0, b.cosSin().toHeapArray(), t * r, r);
        }
        shape.set(0, dims.hidden());
        shape.set(1, c);
        shape.set(2, r);
        shape.set(3, i);
        shape.set(4, n);
        if (n > 0) {
            b.plan().execute();
        }
        float[] out = b.out().toHeapArray();
        float[] latent = new float[n * c];
        float[] rope = new float[n * r];
        float[] index = new float[n * i];
        for (int t = 0; t < n; t++) {
            System.arraycopy(out, t * width, latent, t * c, c);
            System.arraycopy(out, t * width + c, rope, t * r, r);
            System.arraycopy(out, t * width + c + r, index, t * i, i);
        }
        return new KeyFloats(n, latent, rope, index);
    }

    /** Arrays for {@code capacity = {tokens}} and the plan over them. */
    private Buffers build(long[] capacity) {
        NsaDims dims = layer.dims();
        int c = (int) capacity[0];
        LongArray seeds = new LongArray(c);
        FloatArray cosSin = new FloatArray(c * Math.max(1, dims.rope()));
        FloatArray out = new FloatArray(c * (dims.latent() + dims.rope() + dims.index()));
        TaskGraph graph = new TaskGraph("syntheticKeys")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, weights)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, seeds, cosSin, shape)
                .task("keys", SyntheticKernels::keys, seeds, weights, cosSin, shape, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out);
        return new Buffers(seeds, cosSin, out, new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    @Override
    public void close() {
        buffers.close();
    }
}

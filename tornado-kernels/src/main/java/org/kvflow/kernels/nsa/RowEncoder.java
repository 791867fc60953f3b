package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.ExecutionResult;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.rows.DeviceRows;
import org.kvflow.kernels.quant.QuantKernels;

/**
 * Turns a model's key floats ({@link KeyFloats}) into the stored bytes of a layout on a kernel
 * device: each token's latent-KV row as {@link MlaRows#encode} writes it, and its index key as the
 * fp8 codes and per-128 scales that {@link IndexRows#encode} stores. Fp8 latents and index keys are
 * quantised by {@link QuantKernels#quantizeTiles} on the device, tiles restarting at every row.
 * Either the rows come back to the host ({@link #rows}: rope and bf16 latents encoded there), or
 * they stay on the device for a page memory there to store in place ({@link #onDevice}). The bytes
 * equal the host encoders' on every device. Not thread-safe; close to free the device buffers.
 */
public final class RowEncoder implements AutoCloseable {
    private final KvLayout layout;
    private final Device device;
    private final int c;
    private final int r;
    private final int index;
    private final GrowingBuffers<Buffers> buffers;

    /** Device arrays of one capacity (the latent ones unused for bf16) and the plan over them. */
    private record Buffers(FloatArray latent, FloatArray latentScales, ByteArray latentCodes, FloatArray rope, FloatArray index,
                           FloatArray indexScales, ByteArray indexCodes, ExecutionPlan plan) {}

    /**
     * @param layout the byte layout the rows are stored in
     * @param device where the rows are quantised
     */
    public RowEncoder(KvLayout layout, Device device) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.device = Objects.requireNonNull(device, "device");
        ModelShape shape = layout.shape();
        this.c = shape.latentDim();
        this.r = shape.ropeDim();
        this.index = shape.indexDim();
        int widest = Math.max(c, index);
        this.buffers = new GrowingBuffers<>(1, this::build, Buffers::plan, n -> n[0] * widest <= Integer.MAX_VALUE - 8);
    }

    /**
     * @return the stored bytes of {@code keys}, on the host
     * @throws IllegalArgumentException if a part of {@code keys} does not have the layout's width
     */
    public HostRows rows(KeyFloats keys) {
        int n = keys.count();
        Buffers b = upload(keys);
        boolean fp8 = layout.dtype() != KvDtype.BF16;
        if (n > 0) {
            ExecutionResult result = b.plan().execute().transferToHost(b.indexScales(), b.indexCodes());
            if (fp8) {
                result.transferToHost(b.latentScales(), b.latentCodes());
            }
        }
        int rowBytes = layout.mlaRowBytes();
        byte[] mla = new byte[n * rowBytes];
        for (int t = 0; t < n; t++) {
            if (fp8) {
                MlaRows.encodeQuantized(b.latentCodes().toHeapArray(), t * c, b.latentScales().toHeapArray(), t * KvLayout.tiles(c),
                        keys.ropeOf(t), layout, mla, t * rowBytes);
            } else {
                MlaRows.encode(keys.latentOf(t), keys.ropeOf(t), layout, mla, t * rowBytes);
            }
        }
        return new HostRows(n, mla, Arrays.copyOf(b.indexCodes().toHeapArray(), n * index),
                Arrays.copyOf(b.indexScales().toHeapArray(), n * KvLayout.tiles(index)));
    }

    /**
     * The stored form of {@code keys} left on the device, for a page memory of the same device to
     * store in place ({@code StoreRows.store}): nothing comes back to the host. The regions hold
     * until the next call.
     *
     * @throws IllegalStateException if the device's arrays do not lie in device memory a page memory reaches
     * @throws IllegalArgumentException if a part of {@code keys} does not have the layout's width
     */
    public DeviceRows onDevice(KeyFloats keys) {
        Buffers b = upload(keys);
        if (keys.count() > 0) {
            b.plan().execute();
        }
        return new DeviceRows(keys.count(), region(b, b.latentCodes()), region(b, b.latentScales()), region(b, b.latent()),
                region(b, b.rope()), region(b, b.indexCodes()), region(b, b.indexScales()));
    }

    private DeviceRegion region(Buffers b, Object array) {
        return b.plan().deviceRegion(array).orElseThrow(() -> new IllegalStateException(
                "the rows computed on " + device + " do not lie in device memory a page memory reaches"));
    }

    /** The floats of {@code keys} in buffers that fit them, for the next execute to quantise. */
    private Buffers upload(KeyFloats keys) {
        keys.requireWidths(c, r, index);
        Buffers b = buffers.atLeast(keys.count());
        System.arraycopy(keys.latent(), 0, b.latent().toHeapArray(), 0, keys.latent().length);
        System.arraycopy(keys.rope(), 0, b.rope().toHeapArray(), 0, keys.rope().length);
        System.arraycopy(keys.index(), 0, b.index().toHeapArray(), 0, keys.index().length);
        return b;
    }

    /**
     * Arrays for {@code capacity = {tokens}} and the plan over them: index keys always quantised,
     * latents only for fp8 rows; outputs come back only on demand (the host path asks for them,
     * the in-place path leaves them on the device).
     */
    private Buffers build(long[] capacity) {
        int n = (int) capacity[0];
        FloatArray latent = new FloatArray(n * c);
        FloatArray latentScales = new FloatArray(n * KvLayout.tiles(c));
        ByteArray latentCodes = new ByteArray(n * c);
        FloatArray rope = new FloatArray(n * Math.max(1, r));
        FloatArray indexKeys = new FloatArray(n * index);
        FloatArray indexScales = new FloatArray(n * KvLayout.tiles(index));
        ByteArray indexCodes = new ByteArray(n * index);
        TaskGraph graph = new TaskGraph("rowEncoder")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, indexKeys, latent, rope)
                .task("index", QuantKernels::quantizeTiles, indexKeys, index, KvLayout.QUANT_TILE, indexScales, indexCodes);
        if (layout.dtype() != KvDtype.BF16) {
            graph.task("latent", QuantKernels::quantizeTiles, latent, c, KvLayout.QUANT_TILE, latentScales, latentCodes);
        }
        graph.transferToHost(DataTransferMode.UNDER_DEMAND, indexScales, indexCodes, latentScales, latentCodes);
        return new Buffers(latent, latentScales, latentCodes, rope, indexKeys, indexScales, indexCodes,
                new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    @Override
    public void close() {
        buffers.close();
    }
}

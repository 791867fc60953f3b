package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
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
 * The stored bytes of the synthetic layer's key side (contract §3.8 steps 3–5) for a batch of tokens
 * on a kernel device: each token's latent-KV row as {@link MlaRows#encode} writes it, and its index
 * key as the fp8 codes and per-128 scales that {@link IndexRows#encode} stores. The floats come from
 * {@link SyntheticKeys}; fp8 latents and index keys are quantised by
 * {@link QuantKernels#quantizeTiles} on the same device, tiles restarting at every row. Either the
 * rows come back to the host ({@link #rows}: rope and bf16 latents encoded there), or they stay on
 * the device for a page memory there to store in place ({@link #rowsOnDevice}). The bytes equal
 * the host path's on every device. Not thread-safe; close to free the device buffers.
 */
public final class SyntheticRows implements AutoCloseable {
    /** {@code count} tokens: {@code count × rowBytes} MLA bytes, {@code count × I} index codes, {@code count × ⌈I/128⌉} index scales. */
    public record Rows(int count, byte[] mla, byte[] indexCodes, float[] indexScales) {}

    private final SyntheticNsaLayer layer;
    private final KvLayout layout;
    private final Device device;
    private final SyntheticKeys keys;
    private final GrowingBuffers<Buffers> buffers;

    /** Device arrays of one capacity (the latent ones unused for bf16) and the plan over them. */
    private record Buffers(FloatArray latent, FloatArray latentScales, ByteArray latentCodes, FloatArray rope, FloatArray index,
                           FloatArray indexScales, ByteArray indexCodes, ExecutionPlan plan) {}

    /** @throws IllegalArgumentException if {@code layout}'s shape does not have the layer's dimensions */
    public SyntheticRows(SyntheticNsaLayer layer, KvLayout layout, Device device) {
        this.layer = Objects.requireNonNull(layer, "layer");
        this.layout = Objects.requireNonNull(layout, "layout");
        this.device = Objects.requireNonNull(device, "device");
        NsaDims dims = layer.dims();
        if (layout.shape().latentDim() != dims.latent() || layout.shape().ropeDim() != dims.rope() || layout.shape().indexDim() != dims.index()) {
            throw new IllegalArgumentException("layout " + layout.shape() + " does not store rows of latent " + dims.latent() + ", rope "
                    + dims.rope() + ", index " + dims.index());
        }
        this.keys = new SyntheticKeys(layer, device);
        int widest = Math.max(dims.latent(), dims.index());
        this.buffers = new GrowingBuffers<>(1, this::build, Buffers::plan, c -> c[0] * widest <= Integer.MAX_VALUE - 8);
    }

    /**
     * @return the rows of tokens {@code (tokenIds[i], positions[i])}
     * @throws IllegalArgumentException if the two lists differ in length or a position is negative
     */
    public Rows rows(int[] tokenIds, long[] positions) {
        SyntheticNsaLayer.TokenKv[] kv = keys.keys(tokenIds, positions);
        int n = kv.length;
        Buffers b = quantize(kv);
        boolean fp8 = layout.dtype() != KvDtype.BF16;
        if (n > 0) {
            ExecutionResult result = b.plan().execute().transferToHost(b.indexScales(), b.indexCodes());
            if (fp8) {
                result.transferToHost(b.latentScales(), b.latentCodes());
            }
        }
        NsaDims dims = layer.dims();
        int c = dims.latent();
        int index = dims.index();
        int rowBytes = layout.mlaRowBytes();
        byte[] mla = new byte[n * rowBytes];
        for (int t = 0; t < n; t++) {
            if (fp8) {
                MlaRows.encodeQuantized(b.latentCodes().toHeapArray(), t * c, b.latentScales().toHeapArray(), t * KvLayout.tiles(c),
                        kv[t].rope(), layout, mla, t * rowBytes);
            } else {
                MlaRows.encode(kv[t].latent(), kv[t].rope(), layout, mla, t * rowBytes);
            }
        }
        return new Rows(n, mla, Arrays.copyOf(b.indexCodes().toHeapArray(), n * index),
                Arrays.copyOf(b.indexScales().toHeapArray(), n * KvLayout.tiles(index)));
    }

    /**
     * The rows of tokens {@code (tokenIds[i], positions[i])} left where the device computed them,
     * for a page memory of the same device to store in place ({@code PageStore.storeRows}): nothing
     * comes back to the host. The regions hold until the next call.
     *
     * @throws IllegalStateException if the device's arrays do not lie in device memory a page memory reaches
     * @throws IllegalArgumentException if the two lists differ in length or a position is negative
     */
    public DeviceRows rowsOnDevice(int[] tokenIds, long[] positions) {
        SyntheticNsaLayer.TokenKv[] kv = keys.keys(tokenIds, positions);
        Buffers b = quantize(kv);
        int r = layer.dims().rope();
        for (int t = 0; t < kv.length; t++) {
            System.arraycopy(kv[t].rope(), 0, b.rope().toHeapArray(), t * r, r);
        }
        if (kv.length > 0) {
            b.plan().execute();
        }
        return new DeviceRows(kv.length, region(b, b.latentCodes()), region(b, b.latentScales()), region(b, b.latent()),
                region(b, b.rope()), region(b, b.indexCodes()), region(b, b.indexScales()));
    }

    private DeviceRegion region(Buffers b, Object array) {
        return b.plan().deviceRegion(array).orElseThrow(() -> new IllegalStateException(
                "the rows computed on " + device + " do not lie in device memory a page memory reaches"));
    }

    /** The latent and index floats of {@code kv} in buffers that fit them, for the next execute to quantise. */
    private Buffers quantize(SyntheticNsaLayer.TokenKv[] kv) {
        NsaDims dims = layer.dims();
        int n = kv.length;
        int c = dims.latent();
        int index = dims.index();
        Buffers b = buffers.atLeast(n);
        for (int t = 0; t < n; t++) {
            System.arraycopy(kv[t].latent(), 0, b.latent().toHeapArray(), t * c, c);
            System.arraycopy(kv[t].indexKey(), 0, b.index().toHeapArray(), t * index, index);
        }
        return b;
    }

    /**
     * Arrays for {@code capacity = {tokens}} and the plan over them: index keys always quantised,
     * latents only for fp8 rows; outputs come back only on demand (the host path asks for them,
     * the in-place path leaves them on the device).
     */
    private Buffers build(long[] capacity) {
        NsaDims dims = layer.dims();
        int n = (int) capacity[0];
        int c = dims.latent();
        int index = dims.index();
        FloatArray latent = new FloatArray(n * c);
        FloatArray latentScales = new FloatArray(n * KvLayout.tiles(c));
        ByteArray latentCodes = new ByteArray(n * c);
        FloatArray rope = new FloatArray(n * Math.max(1, dims.rope()));
        FloatArray indexKeys = new FloatArray(n * index);
        FloatArray indexScales = new FloatArray(n * KvLayout.tiles(index));
        ByteArray indexCodes = new ByteArray(n * index);
        TaskGraph graph = new TaskGraph("syntheticRows")
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
        keys.close();
    }
}

package org.kvflow.deepseek;

import java.nio.file.Path;
import java.util.Objects;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.model.KvConsumer;
import org.kvflow.model.KvModel;
import org.kvflow.model.KvProducer;
import org.kvflow.model.LayerView;
import org.kvflow.model.safetensors.SafeTensors;

/**
 * DeepSeek V3.2's attention path as a kvflow model: the first {@code layers} layers of a checkpoint
 * in safetensors form, each layer's input being its token's embedding through the layer's input
 * norm (the MoE blocks between layers are not part of the attention path). The rows are stored at
 * the real NSA/MLA layout when the widths are V3.2's (latent 512, rope 64, index 128; {@code nsa-mla})
 * and at a toy layout otherwise. Its kernels run through the kernel API on the pipeline's device
 * ({@link V32Keys}, {@link V32Attention}): java, opencl or cuda.
 */
public final class V32Model implements KvModel {
    private final V32Config config;
    private final KvLayout layout;
    private final V32Weights[] layers;
    private final Rope rope;

    private V32Model(V32Config config, KvLayout layout, V32Weights[] layers) {
        this.config = config;
        this.layout = layout;
        this.layers = layers;
        this.rope = new Rope(config);
    }

    /**
     * Reads layers {@code 0..layers-1} of the checkpoint {@code weights}.
     *
     * @param weights a safetensors file holding at least those layers' attention weights and the embedding
     * @param config  the model's widths
     * @param layers  how many layers
     * @param dtype   how the latent rows are stored
     * @return the model
     * @throws org.kvflow.model.safetensors.SafeTensorsException naming the tensor that is missing or of the wrong shape or dtype
     */
    public static V32Model read(Path weights, V32Config config, int layers, KvDtype dtype) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(dtype, "dtype");
        if (layers < 1) {
            throw new IllegalArgumentException("layers must be >= 1, was " + layers);
        }
        V32Weights[] read = new V32Weights[layers];
        try (SafeTensors file = SafeTensors.open(weights)) {
            for (int l = 0; l < layers; l++) {
                read[l] = V32Weights.read(file, config, l);
            }
        }
        boolean real = config.kvLora() == 512 && config.rope() == 64 && config.indexDim() == 128;
        ModelShape shape = new ModelShape(real ? "deepseek-v3.2" : "deepseek-v3.2-tiny", real ? ModelKind.NSA_MLA : ModelKind.TOY_MLA, layers,
                config.kvLora(), config.rope(), config.indexDim());
        return new V32Model(config, new KvLayout(shape, dtype), read);
    }

    /** {@return how many token ids the embedding holds} */
    public int vocabulary() {
        return layers[0].vocab();
    }

    /** {@return the model's widths} */
    public V32Config config() {
        return config;
    }

    /** Layer {@code l}'s key side on {@code device}, for the caller to close. */
    V32Keys keys(int l, Device device) {
        return new V32Keys(config, layers[l], rope, device);
    }

    /** Layer {@code l}'s query side and attention on {@code device}, for the caller to close. */
    V32Attention attention(int l, Device device) {
        return new V32Attention(config, layers[l], rope, device);
    }

    @Override
    public String name() {
        return layout.shape().name();
    }

    @Override
    public KvLayout layout() {
        return layout;
    }

    /**
     * Layer {@code layer}'s attention for the queries at {@code positions} over {@code view}, with
     * what the indexer selected for each: the consumer's work, for checks against a reference.
     *
     * @param layer     the layer
     * @param view      the layer's keys
     * @param tokenIds  the request's token ids
     * @param positions the query positions, ascending
     * @param device    where it runs
     * @return outputs and selections
     */
    public Attended attendWithSelection(int layer, LayerView view, int[] tokenIds, long[] positions, Device device) {
        try (V32Attention attention = attention(layer, device)) {
            return attention.attend(view, tokenIds, positions);
        }
    }

    @Override
    public KvProducer producer(Device device) {
        Layers<V32Keys> parts = new Layers<>(layers.length, l -> keys(l, device));
        return new KvProducer() {
            @Override
            public KeyFloats keys(int layer, int[] tokenIds, long[] positions) {
                return parts.layer(layer).keys(tokenIds, positions);
            }

            @Override
            public void close() {
                parts.close();
            }
        };
    }

    @Override
    public KvConsumer consumer(Device device) {
        Layers<V32Attention> parts = new Layers<>(layers.length, l -> attention(l, device));
        return new KvConsumer() {
            @Override
            public float[][] attend(int layer, LayerView view, int[] tokenIds, long[] positions) {
                return parts.layer(layer).attend(view, tokenIds, positions).out();
            }

            @Override
            public void close() {
                parts.close();
            }
        };
    }

    @Override
    public String toString() {
        return name() + " (" + layers.length + " layers, " + layout.dtype().wireName() + ")";
    }
}

package org.kvflow.model.synthetic;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.model.KvConsumer;
import org.kvflow.model.KvModel;
import org.kvflow.model.KvProducer;

/**
 * The synthetic NSA/MLA model of contract §3.8: {@code layers} one-head layers of seeded weights
 * (seeds {@code seed + l}) whose rows are stored in {@code dtype}. Every implementation that follows
 * the contract computes the same floats, so its outputs are a cross-device and cross-layout check.
 */
public final class SyntheticModel implements KvModel {
    private final NsaDims dims;
    private final KvDtype dtype;
    private final long seed;
    private final SyntheticNsaLayer[] layers;
    private final KvLayout layout;

    /** {@return a builder: dims and dtype are required; one layer and seed 0 unless set} */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link SyntheticModel} by name. */
    public static final class Builder {
        private @Nullable NsaDims dims;
        private @Nullable KvDtype dtype;
        private int layers = 1;
        private long seed;

        private Builder() {}

        /**
         * The layer's dimensions.
         *
         * @param d the layer's dimensions
         * @return this builder
         */
        public Builder dims(NsaDims d) {
            dims = d;
            return this;
        }

        /**
         * How KV is stored.
         *
         * @param d how KV is stored (bf16 or fp8)
         * @return this builder
         */
        public Builder dtype(KvDtype d) {
            dtype = d;
            return this;
        }

        /**
         * How many layers.
         *
         * @param n how many layers
         * @return this builder
         */
        public Builder layers(int n) {
            layers = n;
            return this;
        }

        /**
         * Layer {@code l}'s weights come from seed {@code seed + l}.
         *
         * @param s the seed
         * @return this builder
         */
        public Builder seed(long s) {
            seed = s;
            return this;
        }

        /** {@return the model} */
        public SyntheticModel build() {
            return new SyntheticModel(Objects.requireNonNull(dims, "dims"), Objects.requireNonNull(dtype, "dtype"), layers, seed);
        }
    }

    /**
     * A model of {@code layers} synthetic layers.
     *
     * @param dims   the layer's dimensions
     * @param dtype  how KV is stored
     * @param layers how many layers (at least one)
     * @param seed   layer {@code l}'s weights come from seed {@code seed + l}
     */
    public SyntheticModel(NsaDims dims, KvDtype dtype, int layers, long seed) {
        this.dims = Objects.requireNonNull(dims, "dims");
        this.dtype = Objects.requireNonNull(dtype, "dtype");
        if (layers < 1) {
            throw new IllegalArgumentException("layers must be >= 1, was " + layers);
        }
        this.seed = seed;
        this.layers = new SyntheticNsaLayer[layers];
        for (int l = 0; l < layers; l++) {
            this.layers[l] = SyntheticNsaLayer.ofModel(seed, dims, l);
        }
        this.layout = dims.layout(dtype, layers);
    }

    /** {@return the layer's dimensions} */
    public NsaDims dims() {
        return dims;
    }

    /** {@return how KV is stored} */
    public KvDtype dtype() {
        return dtype;
    }

    /** {@return the model's seed} */
    public long seed() {
        return seed;
    }

    @Override
    public String name() {
        return layout.shape().name() + " seed " + seed;
    }

    @Override
    public int layerCount() {
        return layers.length;
    }

    /**
     * Layer {@code l}'s weights.
     *
     * @param l the layer
     * @return layer {@code l}
     */
    public SyntheticNsaLayer layer(int l) {
        return layers[l];
    }

    @Override
    public KvLayout layout() {
        return layout;
    }

    @Override
    public KvProducer producer(Device device) {
        return new SyntheticProducer(this, device);
    }

    @Override
    public KvConsumer consumer(Device device) {
        return new SyntheticConsumer(this, device);
    }

    @Override
    public String toString() {
        return name();
    }
}

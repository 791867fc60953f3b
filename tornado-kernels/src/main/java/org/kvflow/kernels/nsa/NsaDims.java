package org.kvflow.kernels.nsa;

import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/**
 * Dimensions of the synthetic NSA/MLA layer (contract §3.8).
 *
 * @param hidden hidden width {@code H} (default 64)
 * @param latent latent width {@code C} (512; toy: any)
 * @param rope   rope width {@code R} (64; toy: any even)
 * @param index  indexer head dim {@code I} (128; toy: any)
 * @param topk   positions the indexer selects per query (2048; toy: any ≥ 1)
 */
public record NsaDims(int hidden, int latent, int rope, int index, int topk) {
    /** DeepSeek V3.2 / GLM-5 widths with the default hidden width. */
    public static final NsaDims REAL = new NsaDims(64, 512, 64, 128, 2048);

    public NsaDims {
        if (hidden < 1 || latent < 1 || index < 1 || topk < 1) {
            throw new IllegalArgumentException("hidden, latent, index and topk must be >= 1: " + hidden + ", " + latent
                    + ", " + index + ", " + topk);
        }
        if (rope < 0 || rope % 2 != 0) {
            throw new IllegalArgumentException("rope must be even and >= 0, was " + rope);
        }
    }

    /** The byte layout of these widths for {@code layers} layers (toy-mla unless the widths are the real ones). */
    public KvLayout layout(KvDtype dtype, int layers) {
        boolean real = latent == 512 && rope == 64 && index == 128;
        ModelKind kind = real ? ModelKind.NSA_MLA : ModelKind.TOY_MLA;
        return new KvLayout(new ModelShape(real ? "synthetic-nsa" : "synthetic-toy", kind, layers, latent, rope, index), dtype);
    }
}

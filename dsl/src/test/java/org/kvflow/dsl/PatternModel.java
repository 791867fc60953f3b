package org.kvflow.dsl;

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

/**
 * A test-only model: its key floats are a known function of (layer, token id, position), and its
 * consumer returns, for query {@code t}, the key row {@code t} it reads from the view: so a run shows
 * exactly which bytes each stage stored and gathered.
 */
final class PatternModel implements KvModel {
    static final int LATENT = 40;
    static final int ROPE = 8;
    static final int INDEX = 24;
    private final KvLayout layout;

    PatternModel(int layers, KvDtype dtype) {
        this.layout = new KvLayout(new ModelShape("pattern", ModelKind.TOY_MLA, layers, LATENT, ROPE, INDEX), dtype);
    }

    /** Part {@code part} (0 latent, 1 rope, 2 index) of token {@code (id, pos)} in {@code layer}. */
    static float[] pattern(int part, int layer, int id, long pos) {
        int width = part == 0 ? LATENT : part == 1 ? ROPE : INDEX;
        float[] v = new float[width];
        for (int i = 0; i < width; i++) {
            v[i] = ((layer * 31 + part * 7 + id * 3 + (int) pos * 5 + i * 11) % 23 - 11) / 4f;
        }
        return v;
    }

    @Override
    public String name() {
        return "pattern";
    }

    @Override
    public KvLayout layout() {
        return layout;
    }

    @Override
    public KvProducer producer(Device device) {
        return new KvProducer() {
            @Override
            public KeyFloats keys(int layer, int[] tokenIds, long[] positions) {
                int n = tokenIds.length;
                float[][] parts = {new float[n * LATENT], new float[n * ROPE], new float[n * INDEX]};
                for (int t = 0; t < n; t++) {
                    for (int part = 0; part < 3; part++) {
                        float[] v = pattern(part, layer, tokenIds[t], positions[t]);
                        System.arraycopy(v, 0, parts[part], t * v.length, v.length);
                    }
                }
                return new KeyFloats(n, parts[0], parts[1], parts[2]);
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public KvConsumer consumer(Device device) {
        return new KvConsumer() {
            @Override
            public float[][] attend(int layer, LayerView view, int[] tokenIds, long[] positions) {
                float[] rows = view.keyRows();
                float[][] out = new float[positions.length][];
                for (int i = 0; i < positions.length; i++) {
                    int t = (int) positions[i];
                    out[i] = java.util.Arrays.copyOfRange(rows, t * (LATENT + ROPE), (t + 1) * (LATENT + ROPE));
                }
                return out;
            }

            @Override
            public void close() {
            }
        };
    }
}

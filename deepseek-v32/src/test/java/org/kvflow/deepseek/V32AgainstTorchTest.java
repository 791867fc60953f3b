package org.kvflow.deepseek;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.RowEncoder;
import org.kvflow.model.KvProducer;
import org.kvflow.model.LayerView;
import org.kvflow.model.safetensors.SafeTensorsException;

/**
 * The small-width V3.2 layer on the java device against torch's outputs for the same weights and
 * tokens (committed golden file): the key floats the store quantises, every query's top-k and its
 * attention output, within the tolerances docs/models.md states.
 */
class V32AgainstTorchTest {
    /** Key floats: fp32 sums in another order differ by a few ulps of values of order 1. */
    static final float KEY_TOLERANCE = 1e-4f;
    /** Attention outputs: relative to the largest output of the layer. */
    static final float OUT_TOLERANCE = 1e-4f;

    /** Checks keys, top-k and outputs of both layers on {@code device} against torch's. */
    static void assertMatchesTorch(Device device) {
        V32Model model = Golden.model(KvDtype.FP8_E4M3);
        int[] ids = Golden.tokens();
        long[] positions = LongStream.range(0, ids.length).toArray();
        KvLayout layout = model.layout();
        for (int l = 0; l < 2; l++) {
            try (V32Keys producer = model.keys(l, device); V32Attention attention = model.attention(l, device);
                 RowEncoder encoder = new RowEncoder(layout, device)) {
                KeyFloats keys = producer.keys(ids, positions);
                assertClose(keys.latent(), Golden.floats(l, "latent"), KEY_TOLERANCE, "latent of layer " + l);
                assertClose(keys.rope(), Golden.floats(l, "rope"), KEY_TOLERANCE, "rope of layer " + l);
                assertClose(keys.index(), Golden.floats(l, "index"), KEY_TOLERANCE, "index keys of layer " + l);
                Attended result = attention.attend(new HeapView(encoder.rows(keys), layout), ids, positions);
                float[] expected = Golden.floats(l, "out");
                float max = 0;
                for (float e : expected) {
                    max = Math.max(max, Math.abs(e));
                }
                int hidden = V32Config.TINY.hidden();
                for (int t = 0; t < ids.length; t++) {
                    assertThat(result.selected()[t]).as("layer %d query %d: top-k", l, t).containsExactly(Golden.topk(l, t));
                    float[] want = java.util.Arrays.copyOfRange(expected, t * hidden, (t + 1) * hidden);
                    assertClose(result.out()[t], want, OUT_TOLERANCE * max, "layer " + l + " query " + t + " output");
                }
            }
        }
    }

    @Test
    void keysTopKAndOutputsMatchTorchOnTheJavaDevice() {
        assertMatchesTorch(Devices.java());
    }

    /** On opencl (PoCL in the build), or the device {@code -Dkvflow.test.device} names (cuda on the H200). */
    @Tag("accelerator")
    @Test
    void keysTopKAndOutputsMatchTorchOnTheAccelerator() {
        String selector = System.getProperty("kvflow.test.device", "opencl");
        Device device = Devices.best(selector).orElse(null);
        assumeTrue(device != null, () -> "no device '" + selector + "' (OpenCL needs pocl-opencl-icd): found " + Devices.all());
        assertMatchesTorch(device);
    }

    @Test
    void aTokenOutsideTheVocabularyIsRefusedNamingItsPosition() {
        V32Model model = Golden.model(KvDtype.FP8_E4M3);
        try (KvProducer producer = model.producer(Devices.java())) {
            assertThatThrownBy(() -> producer.keys(0, new int[] {3, 512}, new long[] {0, 1})).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("token id 512 at position 1 is outside the vocabulary of 512");
        }
    }

    @Test
    void aCheckpointWithoutTheLayerOrOfOtherWidthsIsRefusedNamingTheTensor() {
        assertThatThrownBy(() -> V32Model.read(Golden.WEIGHTS, V32Config.TINY, 3, KvDtype.FP8_E4M3)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(Golden.WEIGHTS + ": tensor model.layers.2.input_layernorm.weight is missing");
        assertThatThrownBy(() -> V32Model.read(Golden.WEIGHTS, V32Config.REAL, 1, KvDtype.FP8_E4M3)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(Golden.WEIGHTS + ": tensor model.embed_tokens.weight has shape [512, 64], expected [512, 7168]");
        V32Config wider = new V32Config(64, 48, 32, 16, 8, 16, 16, 4, 32, 8, 10000, 40, 4096, 163840, 32, 1, 1);
        assertThatThrownBy(() -> V32Model.read(Golden.WEIGHTS, wider, 1, KvDtype.FP8_E4M3)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(Golden.WEIGHTS + ": tensor model.layers.0.self_attn.q_b_proj.weight has shape [128, 48], expected [256, 48]");
    }

    @Test
    void widthsTheLayerCannotHaveAreRefusedNamingTheWidth() {
        assertThatThrownBy(() -> new V32Config(64, 48, 32, 16, 4, 16, 16, 4, 48, 8, 10000, 40, 4096, 163840, 32, 1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("indexDim must be a power of two from rope (16) to 128 (one fp8 scale per index key), was 48");
        assertThatThrownBy(() -> new V32Config(64, 48, 32, 15, 4, 16, 16, 4, 32, 8, 10000, 40, 4096, 163840, 32, 1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("rope must be even and >= 2, was 15");
        assertThatThrownBy(() -> new V32Config(64, 0, 32, 16, 4, 16, 16, 4, 32, 8, 10000, 40, 4096, 163840, 32, 1, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("qLora must be >= 1, was 0");
        assertThatThrownBy(() -> V32Model.read(Golden.WEIGHTS, V32Config.TINY, 0, KvDtype.FP8_E4M3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("layers must be >= 1, was 0");
    }

    static void assertClose(float[] got, float[] want, float tolerance, String what) {
        assertThat(got).as(what + ": length").hasSameSizeAs(want);
        for (int i = 0; i < want.length; i++) {
            if (Math.abs(got[i] - want[i]) > tolerance) {
                throw new AssertionError(what + "[" + i + "]: " + got[i] + " vs torch " + want[i] + " (tolerance " + tolerance + ")");
            }
        }
    }

    /** A view of rows encoded on the host, as a pipeline's heap view gives them. */
    record HeapView(org.kvflow.kernels.nsa.HostRows rows, KvLayout layout) implements LayerView {
        @Override
        public int keyCount() {
            return rows.count();
        }

        @Override
        public boolean inPlace() {
            return false;
        }

        @Override
        public void readIndexKeys(DeviceRegion codes, DeviceRegion scales) {
            throw new UnsupportedOperationException("a heap view");
        }

        @Override
        public void readKeyRows(long[] positions, DeviceRegion out) {
            throw new UnsupportedOperationException("a heap view");
        }

        @Override
        public byte[] indexCodes() {
            return rows.indexCodes();
        }

        @Override
        public float[] indexScales() {
            return rows.indexScales();
        }

        @Override
        public float[] keyRows() {
            int width = layout.shape().latentDim() + layout.shape().ropeDim();
            float[] all = new float[rows.count() * width];
            float[] row = new float[width];
            for (int t = 0; t < rows.count(); t++) {
                MlaRows.decodeKey(rows.mla(), t * layout.mlaRowBytes(), layout, row);
                System.arraycopy(row, 0, all, t * width, width);
            }
            return all;
        }
    }
}

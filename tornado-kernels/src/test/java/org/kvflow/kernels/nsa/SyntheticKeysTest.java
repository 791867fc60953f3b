package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;

/** The synthetic layer's key side on a kernel device gives SyntheticNsaLayer.key's floats, bit for bit. */
class SyntheticKeysTest {
    private static final NsaDims TOY = new NsaDims(16, 40, 8, 24, 8);

    private static void assertSameBits(SyntheticKeys device, SyntheticNsaLayer layer, int n, long seed) {
        Random rnd = new Random(seed);
        int[] tokens = new int[n];
        long[] positions = new long[n];
        for (int t = 0; t < n; t++) {
            tokens[t] = rnd.nextInt(150_000);
            positions[t] = t == 0 ? 0 : rnd.nextInt(200_000);
        }
        KeyFloats keys = device.keys(tokens, positions);
        assertThat(keys.count()).isEqualTo(n);
        for (int t = 0; t < n; t++) {
            SyntheticNsaLayer.TokenKv expected = layer.key(tokens[t], positions[t]);
            assertThat(bits(keys.latentOf(t))).as("latent of token %d", t).isEqualTo(bits(expected.latent()));
            assertThat(bits(keys.ropeOf(t))).as("rope of token %d", t).isEqualTo(bits(expected.rope()));
            assertThat(bits(keys.indexOf(t))).as("index key of token %d", t).isEqualTo(bits(expected.indexKey()));
        }
    }

    private static int[] bits(float[] v) {
        int[] b = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = Float.floatToRawIntBits(v[i]);
        }
        return b;
    }

    @Test
    void javaKernelEqualsTheLayer() {
        SyntheticNsaLayer layer = SyntheticNsaLayer.ofModel(42, TOY, 1);
        try (SyntheticKeys keys = new SyntheticKeys(layer, Devices.java())) {
            assertSameBits(keys, layer, 33, 1);
        }
    }

    /** Toy and real dimensions; batches below and above a work-group; a batch that grows the buffers. */
    @Tag("accelerator")
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void openClKernelEqualsTheLayerBitForBit(boolean real) {
        Device cl = AcceleratorUnderTest.get();
        NsaDims dims = real ? NsaDims.REAL : TOY;
        SyntheticNsaLayer layer = SyntheticNsaLayer.ofModel(7, dims, 2);
        try (SyntheticKeys keys = new SyntheticKeys(layer, cl)) {
            assertSameBits(keys, layer, 5, 2);
            assertSameBits(keys, layer, 300, 3);
            assertSameBits(keys, layer, 0, 4);
        }
    }

    @Test
    void mismatchedListsAndNegativePositionsAreRefused() {
        try (SyntheticKeys keys = new SyntheticKeys(new SyntheticNsaLayer(1, TOY), Devices.java())) {
            assertThatThrownBy(() -> keys.keys(new int[2], new long[3])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("2 token ids but 3 positions");
            assertThatThrownBy(() -> keys.keys(new int[] {1, 2}, new long[] {0, -5})).hasMessage("token 1: position -5 is negative");
        }
    }
}

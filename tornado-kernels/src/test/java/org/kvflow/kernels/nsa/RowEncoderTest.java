package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;

/** Key floats encoded on a kernel device (here the synthetic layer's) give the host encoders' bytes: latent-KV rows and index codes + scales. */
class RowEncoderTest {
    private static final NsaDims TOY = new NsaDims(16, 40, 8, 24, 8);
    private static final int PAGE = 4;

    /** Checks {@code n} tokens' rows against MlaRows.encode / IndexRows.encode of SyntheticNsaLayer.key. */
    private static void assertSameBytes(Device device, NsaDims dims, KvDtype dtype, int n, long seed) {
        SyntheticNsaLayer layer = SyntheticNsaLayer.ofModel(seed, dims, 1);
        KvLayout layout = dims.layout(dtype, 1);
        Random rnd = new Random(seed);
        int[] tokens = new int[n];
        long[] positions = new long[n];
        for (int t = 0; t < n; t++) {
            tokens[t] = rnd.nextInt(150_000);
            positions[t] = rnd.nextInt(200_000);
        }
        try (SyntheticKeys keys = new SyntheticKeys(layer, device); RowEncoder rows = new RowEncoder(layout, device)) {
            HostRows got = rows.rows(keys.keys(tokens, positions));
            assertThat(got.count()).isEqualTo(n);
            int rowBytes = layout.mlaRowBytes();
            int pageBytes = (int) layout.indexPageBytes(PAGE);
            for (int t = 0; t < n; t++) {
                SyntheticNsaLayer.TokenKv kv = layer.key(tokens[t], positions[t]);
                byte[] row = new byte[rowBytes];
                MlaRows.encode(kv.latent(), kv.rope(), layout, row, 0);
                assertThat(Arrays.copyOfRange(got.mla(), t * rowBytes, (t + 1) * rowBytes)).as("MLA row of token %d", t).isEqualTo(row);
                byte[] expected = new byte[pageBytes];
                byte[] actual = new byte[pageBytes];
                IndexRows.encode(kv.indexKey(), PAGE, t % PAGE, expected, 0);
                IndexRows.put(got.indexCodes(), t * dims.index(), got.indexScales(), t * KvLayout.tiles(dims.index()), dims.index(), PAGE,
                        t % PAGE, actual, 0);
                assertThat(actual).as("index key of token %d", t).isEqualTo(expected);
            }
        }
    }

    @Test
    void javaRowsEqualTheHostEncoders() {
        assertSameBytes(Devices.java(), TOY, KvDtype.FP8_E4M3, 37, 3);
        assertSameBytes(Devices.java(), TOY, KvDtype.BF16, 5, 4);
    }

    /** Toy and real dimensions, fp8 and bf16 rows, batches below and above a work-group. */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"false, FP8_E4M3, 300", "true, FP8_E4M3, 257", "false, BF16, 9", "true, BF16, 3", "true, FP8_E4M3, 0"})
    void openClRowsEqualTheHostEncodersByteForByte(boolean real, KvDtype dtype, int n) {
        Device cl = AcceleratorUnderTest.get();
        assertSameBytes(cl, real ? NsaDims.REAL : TOY, dtype, n, n + 11);
    }

    @Test
    void keysOfOtherWidthsThanTheLayoutAreRefusedNamingThePart() {
        KvLayout real = NsaDims.REAL.layout(KvDtype.FP8_E4M3, 1);
        try (RowEncoder rows = new RowEncoder(real, Devices.java())) {
            assertThatThrownBy(() -> rows.rows(new KeyFloats(2, new float[1024], new float[128], new float[2 * 24])))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("index floats: 48 for 2 tokens of width 128");
            assertThatThrownBy(() -> rows.rows(new KeyFloats(2, new float[80], new float[128], new float[256])))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("latent floats: 80 for 2 tokens of width 512");
        }
        assertThatThrownBy(() -> new KeyFloats(3, new float[10], new float[0], new float[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("latent floats: 10 is not a whole number of rows for 3 tokens");
    }

    @Test
    void encodeQuantizedRefusesBf16Rows() {
        KvLayout bf16 = TOY.layout(KvDtype.BF16, 1);
        assertThatThrownBy(() -> MlaRows.encodeQuantized(new byte[40], 0, new float[1], 0, new float[8], bf16, new byte[200], 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a bf16 row holds no fp8 codes");
    }
}

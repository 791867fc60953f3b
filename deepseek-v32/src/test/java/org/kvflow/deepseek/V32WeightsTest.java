package org.kvflow.deepseek;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.model.safetensors.SafeTensors;

/**
 * A layer read from a checkpoint stored as DeepSeek publishes it: weight matrices in fp8 e4m3, each
 * with a {@code weight_scale_inv} of one fp32 scale per 128 × 128 block. Three matrices span several
 * blocks (down the rows, across the columns, both), so each block's scale must reach its own entries.
 */
class V32WeightsTest {
    /** Widths with {@code q_b_proj} 160 × 48 (two row blocks), {@code q_a_proj} 48 × 200 (two column blocks), {@code o_proj} 200 × 160 (2 × 2). */
    private static final V32Config WIDE = new V32Config(200, 48, 32, 16, 5, 16, 32, 4, 32, 8, 10000, 40, 4096, 163840, 32, 1, 1);
    private static final String ATTN = "model.layers.0.self_attn.";
    /** fp8 e4m3 codes and their values: 1.0, 2.0, -1.0, 0.5. */
    private static final byte[] CODES = {0x38, 0x40, (byte) 0xB8, 0x30};
    private static final float[] VALUES = {1f, 2f, -1f, 0.5f};

    /** One tensor of a file being written: its dtype, shape and little-endian bytes. */
    private record Tensor(String dtype, long[] shape, byte[] bytes) {}

    private static Tensor f32(SplittableRandom rnd, long... shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        ByteBuffer b = ByteBuffer.allocate((int) (4 * n)).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < n; i++) {
            b.putFloat((float) rnd.nextGaussian());
        }
        return new Tensor("F32", shape, b.array());
    }

    private static Tensor scales(float[][] s) {
        ByteBuffer b = ByteBuffer.allocate(4 * s.length * s[0].length).order(ByteOrder.LITTLE_ENDIAN);
        for (float[] row : s) {
            for (float x : row) {
                b.putFloat(x);
            }
        }
        return new Tensor("F32", new long[] {s.length, s[0].length}, b.array());
    }

    /** Entry (r, c) of an fp8 matrix: one of the four codes, by position. */
    private static int code(int r, int c) {
        return (r * 3 + c) % CODES.length;
    }

    private static Tensor fp8(int rows, int cols) {
        byte[] b = new byte[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                b[r * cols + c] = CODES[code(r, c)];
            }
        }
        return new Tensor("F8_E4M3", new long[] {rows, cols}, b);
    }

    private static void write(Path file, Map<String, Tensor> tensors) throws IOException {
        StringBuilder header = new StringBuilder("{");
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            Tensor t = e.getValue();
            header.append(header.length() > 1 ? "," : "").append('"').append(e.getKey()).append("\":{\"dtype\":\"").append(t.dtype())
                    .append("\",\"shape\":").append(java.util.Arrays.toString(t.shape()).replace(" ", "")).append(",\"data_offsets\":[")
                    .append(data.size()).append(',').append(data.size() + t.bytes().length).append("]}");
            data.write(t.bytes());
        }
        byte[] json = header.append('}').toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(json.length);
        Files.write(file, ByteBuffer.allocate(8 + json.length + data.size()).put(length.array()).put(json).put(data.toByteArray()).array());
    }

    @Test
    void fp8MatricesAreScaledBlockByBlock(@TempDir Path dir) throws IOException {
        V32Config c = WIDE;
        int h = c.hidden();
        SplittableRandom rnd = new SplittableRandom(17);
        Map<String, Tensor> t = new LinkedHashMap<>();
        t.put("model.embed_tokens.weight", f32(rnd, 10, h));
        t.put("model.layers.0.input_layernorm.weight", f32(rnd, h));
        t.put(ATTN + "q_a_proj.weight", fp8(c.qLora(), h));
        t.put(ATTN + "q_a_proj.weight_scale_inv", scales(new float[][] {{3f, 5f}}));
        t.put(ATTN + "q_a_layernorm.weight", f32(rnd, c.qLora()));
        t.put(ATTN + "q_b_proj.weight", fp8(c.heads() * c.qkHead(), c.qLora()));
        t.put(ATTN + "q_b_proj.weight_scale_inv", scales(new float[][] {{7f}, {11f}}));
        t.put(ATTN + "kv_a_proj_with_mqa.weight", f32(rnd, c.kvLora() + c.rope(), h));
        t.put(ATTN + "kv_a_layernorm.weight", f32(rnd, c.kvLora()));
        t.put(ATTN + "kv_b_proj.weight", f32(rnd, (long) c.heads() * (c.nope() + c.v()), c.kvLora()));
        t.put(ATTN + "o_proj.weight", fp8(h, c.heads() * c.v()));
        t.put(ATTN + "o_proj.weight_scale_inv", scales(new float[][] {{2f, 3f}, {13f, 17f}}));
        t.put(ATTN + "indexer.wq_b.weight", f32(rnd, (long) c.indexHeads() * c.indexDim(), c.qLora()));
        t.put(ATTN + "indexer.wk.weight", f32(rnd, c.indexDim(), h));
        t.put(ATTN + "indexer.k_norm.weight", f32(rnd, c.indexDim()));
        t.put(ATTN + "indexer.k_norm.bias", f32(rnd, c.indexDim()));
        t.put(ATTN + "indexer.weights_proj.weight", f32(rnd, c.indexHeads(), h));
        Path file = dir.resolve("fp8.safetensors");
        write(file, t);
        try (SafeTensors st = SafeTensors.open(file)) {
            V32Weights w = V32Weights.read(st, c, 0);
            for (int r = 0; r < c.qLora(); r++) {
                for (int col = 0; col < h; col++) {
                    assertThat(w.qA()[r * h + col]).as("q_a_proj (%d, %d)", r, col).isEqualTo(VALUES[code(r, col)] * (col < 128 ? 3f : 5f));
                }
            }
            int rows = c.heads() * c.qkHead();
            for (int r = 0; r < rows; r++) {
                for (int col = 0; col < c.qLora(); col++) {
                    assertThat(w.qB()[r * c.qLora() + col]).as("q_b_proj (%d, %d)", r, col).isEqualTo(VALUES[code(r, col)] * (r < 128 ? 7f : 11f));
                }
            }
            int oCols = c.heads() * c.v();
            for (int r = 0; r < h; r++) {
                for (int col = 0; col < oCols; col++) {
                    float scale = r < 128 ? (col < 128 ? 2f : 3f) : (col < 128 ? 13f : 17f);
                    assertThat(w.o()[r * oCols + col]).as("o_proj (%d, %d)", r, col).isEqualTo(VALUES[code(r, col)] * scale);
                }
            }
            float[] x = new float[2 * h];
            w.embed(new int[] {0, 9}, new long[] {4, 5}, x);
            float[] table = st.floats("model.embed_tokens.weight", 10, h);
            assertThat(java.util.Arrays.copyOfRange(x, h, 2 * h)).as("the last row of a vocabulary of 10").isEqualTo(java.util.Arrays.copyOfRange(table, 9 * h, 10 * h));
            assertThat(java.util.Arrays.copyOf(x, h)).as("the first row").isEqualTo(java.util.Arrays.copyOf(table, h));
            assertThatThrownBy(() -> w.embed(new int[] {10}, new long[] {6}, new float[h])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("token id 10 at position 6 is outside the vocabulary of 10");
            assertThatThrownBy(() -> w.embed(new int[] {-1}, new long[] {7}, new float[h])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("token id -1 at position 7 is outside the vocabulary of 10");
            assertThat(w.kvB()).as("an F32 matrix is read as it is, with no scale").isEqualTo(st.floats(ATTN + "kv_b_proj.weight",
                    (long) c.heads() * (c.nope() + c.v()), c.kvLora()));
        }
    }
}

package org.kvflow.kernels.quant;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.TaskGraph;

/** fp8 tile quantisation on OpenCL gives the Java reference's bytes, scales and floats bit for bit. */
class QuantKernelsTest {
    private record Quantized(byte[] codes, float[] scales) {}

    private static Quantized quantize(float[] x, int tile, Device device) {
        return quantize(x, Math.max(1, x.length), tile, device);
    }

    /** Rows of {@code rowWidth} values, tiles restarting at each row. */
    private static Quantized quantize(float[] x, int rowWidth, int tile, Device device) {
        FloatArray in = FloatArray.fromArray(x.clone());
        FloatArray scales = new FloatArray(x.length / rowWidth * ((rowWidth + tile - 1) / tile));
        ByteArray codes = new ByteArray(x.length);
        TaskGraph graph = new TaskGraph("quant").transferToDevice(DataTransferMode.EVERY_EXECUTION, in)
                .task("tiles", QuantKernels::quantizeTiles, in, rowWidth, tile, scales, codes)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, scales, codes);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
            plan.execute();
        }
        return new Quantized(codes.toHeapArray(), scales.toHeapArray());
    }

    private static float[] dequantize(Quantized q, int rowWidth, int tile, Device device) {
        ByteArray codes = ByteArray.fromArray(q.codes());
        FloatArray scales = FloatArray.fromArray(q.scales());
        FloatArray out = new FloatArray(q.codes().length);
        TaskGraph graph = new TaskGraph("dequant").transferToDevice(DataTransferMode.EVERY_EXECUTION, codes, scales)
                .task("tiles", QuantKernels::dequantizeTiles, codes, rowWidth, tile, scales, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
            plan.execute();
        }
        return out.toHeapArray();
    }

    /** Every kind of value: wide magnitudes, ties, subnormal results, zeros of both signs, NaN and infinities in their own tiles. */
    private static float[] hardValues(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = switch (rnd.nextInt(6)) {
                case 0 -> (float) rnd.nextGaussian() * (float) Math.pow(10, rnd.nextInt(12) - 6);
                case 1 -> Fp8E4m3.decode((byte) rnd.nextInt(256)) * (rnd.nextBoolean() ? 1f : 1.0625f); // on and between fp8 values
                case 2 -> rnd.nextBoolean() ? 0f : -0f;
                case 3 -> Float.intBitsToFloat(rnd.nextInt(0x00800000)); // fp32 subnormals
                default -> (float) rnd.nextGaussian();
            };
        }
        return x;
    }

    private static Device openCl() {
        Device cl = AcceleratorUnderTest.get();
        return cl;
    }

    @Test
    void theKernelFormEqualsTileQuantTileByTile() {
        float[] x = hardValues(new Random(1), 300);
        Quantized q = quantize(x, 128, Devices.java());
        for (int t = 0; t < 3; t++) {
            int from = t * 128;
            int len = Math.min(128, 300 - from);
            float scale = TileQuant.scale(x, from, len);
            assertThat(q.scales()[t]).isEqualTo(scale);
            for (int i = from; i < from + len; i++) {
                assertThat(q.codes()[i]).isEqualTo(TileQuant.quantize(x[i], scale));
            }
        }
    }

    /** Tile counts not a multiple of the work-group, a short last tile, one value, nothing. */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"128, 100000", "128, 300", "64, 1", "128, 0", "7, 1000"})
    void openClQuantizesAndDequantizesBitForBit(int tile, int n) {
        Device cl = openCl();
        float[] x = hardValues(new Random(tile * 31L + n), n);
        Quantized java = quantize(x, tile, Devices.java());
        Quantized opencl = quantize(x, tile, cl);
        assertThat(opencl.codes()).isEqualTo(java.codes());
        for (int t = 0; t < java.scales().length; t++) {
            assertThat(Float.floatToRawIntBits(opencl.scales()[t])).as("scale %d", t).isEqualTo(Float.floatToRawIntBits(java.scales()[t]));
        }
        int row = Math.max(1, n);
        float[] back = dequantize(java, row, tile, Devices.java());
        float[] backCl = dequantize(java, row, tile, cl);
        for (int i = 0; i < n; i++) {
            assertThat(Float.floatToRawIntBits(backCl[i])).as("value %d", i).isEqualTo(Float.floatToRawIntBits(back[i]));
        }
    }

    /** Rows whose width is not a multiple of the tile: every row starts a tile (MLA latents, index keys of the toy model). */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"40, 128, 7", "200, 128, 300", "512, 128, 33", "24, 128, 1"})
    void rowsRestartTheirTilesOnJavaAndOpenClAlike(int rowWidth, int tile, int rows) {
        float[] x = hardValues(new Random(rowWidth * 17L + rows), rowWidth * rows);
        Quantized java = quantize(x, rowWidth, tile, Devices.java());
        int perRow = (rowWidth + tile - 1) / tile;
        for (int r = 0; r < rows; r++) { // row r alone, as one array, gives the same tiles
            Quantized alone = quantize(Arrays.copyOfRange(x, r * rowWidth, (r + 1) * rowWidth), tile, Devices.java());
            assertThat(Arrays.copyOfRange(java.scales(), r * perRow, (r + 1) * perRow)).isEqualTo(alone.scales());
            assertThat(Arrays.copyOfRange(java.codes(), r * rowWidth, (r + 1) * rowWidth)).isEqualTo(alone.codes());
        }
        Device cl = openCl();
        Quantized opencl = quantize(x, rowWidth, tile, cl);
        assertThat(opencl.codes()).isEqualTo(java.codes());
        assertThat(opencl.scales()).isEqualTo(java.scales());
        assertThat(dequantize(java, rowWidth, tile, cl)).isEqualTo(dequantize(java, rowWidth, tile, Devices.java()));
    }

    @Tag("accelerator")
    @Test
    void saturationNaNAndInfinityTilesMatch() {
        Device cl = openCl();
        float[] x = new float[4 * 8];
        for (int i = 0; i < 8; i++) {
            x[i] = i * 100f - 300f;                       // plain tile
            x[8 + i] = i == 3 ? Float.NaN : i;            // NaN tile: scale NaN, every code NaN
            x[16 + i] = i == 5 ? Float.NEGATIVE_INFINITY : -i; // infinite tile: scale inf
            x[24 + i] = 0f;                               // zero tile: scale 1
        }
        x[30] = -0f;
        Quantized java = quantize(x, 8, Devices.java());
        Quantized opencl = quantize(x, 8, cl);
        assertThat(opencl.scales()).isEqualTo(java.scales());
        assertThat(opencl.codes()).isEqualTo(java.codes());
        assertThat(java.codes()[30]).isEqualTo((byte) 0x80);
    }
}

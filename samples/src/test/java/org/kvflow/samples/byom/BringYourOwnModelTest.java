package org.kvflow.samples.byom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.quant.Bf16;
import org.kvflow.operators.PrefillResult;

/** The sample's user-written layer through a flow: every sampled output is dense causal attention over the keys it stored. */
class BringYourOwnModelTest {
    @Test
    void theUserLayersOutputsAreItsAttentionOverTheRowsThePipelineStored() {
        List<PrefillResult> results = BringYourOwnModel.run();
        assertThat(results).hasSize(2).allMatch(r -> r instanceof PrefillResult.Completed);
        HashLayerModel model = new HashLayerModel(org.kvflow.core.model.KvDtype.BF16, 7);
        int checked = 0;
        for (PrefillResult result : results) {
            PrefillResult.Completed done = (PrefillResult.Completed) result;
            int[] ids = done.request().tokenIds();
            for (Map.Entry<Long, float[]> e : done.attention().entrySet()) {
                int t = (int) (e.getKey() % ids.length);
                float[] want = reference(model, ids, t);
                for (int d = 0; d < want.length; d++) {
                    assertThat(e.getValue()[d]).as("%s position %d value %d", done.request().id(), t, d)
                            .isCloseTo(want[d], org.assertj.core.data.Offset.offset(1e-5f));
                }
                checked++;
            }
        }
        assertThat(checked).as("outputs checked").isGreaterThan(3);
    }

    /** Softmax attention of token t's stored key over the stored keys 0..t (bf16 rows), on the host. */
    private static float[] reference(HashLayerModel model, int[] ids, int t) {
        int width = HashLayerModel.LATENT + HashLayerModel.ROPE;
        float[][] keys = new float[t + 1][];
        try (var producer = model.producer(org.kvflow.kernels.api.Devices.java())) {
            var floats = producer.keys(0, java.util.Arrays.copyOf(ids, t + 1), java.util.stream.LongStream.rangeClosed(0, t).toArray());
            for (int j = 0; j <= t; j++) {
                keys[j] = new float[width];
                float[] latent = floats.latentOf(j);
                float[] rope = floats.ropeOf(j);
                for (int d = 0; d < width; d++) {
                    keys[j][d] = Bf16.decode(Bf16.encode(d < latent.length ? latent[d] : rope[d - latent.length]));
                }
            }
        }
        double[] p = new double[t + 1];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j <= t; j++) {
            double dot = 0;
            for (int d = 0; d < width; d++) {
                dot += keys[t][d] * keys[j][d];
            }
            p[j] = dot / Math.sqrt(width);
            max = Math.max(max, p[j]);
        }
        double sum = 0;
        for (int j = 0; j <= t; j++) {
            p[j] = Math.exp(p[j] - max);
            sum += p[j];
        }
        float[] out = new float[HashLayerModel.LATENT];
        for (int d = 0; d < out.length; d++) {
            double acc = 0;
            for (int j = 0; j <= t; j++) {
                acc += p[j] / sum * keys[j][d];
            }
            out[d] = (float) acc;
        }
        return out;
    }
}

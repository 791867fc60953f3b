package org.kvflow.operators.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * The proof of the operators issue: on random workloads the decode side's KV and the attention
 * outputs are bit-identical between shared-KV and replicated runs, the decode KV equals the
 * synthetic layer's rows (I-PD-1), and the shared run stores each page once where replication
 * stores it cp times.
 */
class SharedEqualsReplicatedTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                // cp, ps, dims, dtype, requests, maxLen, maxRequests (bs), chunk, samples
                Arguments.of(1, 16, Workloads.TOY, KvDtype.BF16, 10, 200, 4, 8192L, 6),
                Arguments.of(2, 1, Workloads.TOY, KvDtype.FP8_E4M3, 10, 60, 16, 8192L, 6),
                Arguments.of(2, 16, Workloads.TOY, KvDtype.FP8_E4M3, 16, 300, 1, 64L, 6),
                Arguments.of(4, 16, Workloads.TOY, KvDtype.BF16, 16, 400, 8, 128L, 6),
                Arguments.of(4, 64, Workloads.TOY, KvDtype.FP8_E4M3, 12, 700, 4, 8192L, 6),
                Arguments.of(8, 16, Workloads.TOY, KvDtype.FP8_E4M3, 24, 500, 16, 256L, 6),
                Arguments.of(8, 64, Workloads.TOY, KvDtype.BF16, 12, 900, 3, 8192L, 6),
                Arguments.of(4, 64, NsaDims.REAL, KvDtype.FP8_E4M3, 4, 700, 4, 256L, 3),
                Arguments.of(8, 64, NsaDims.REAL, KvDtype.BF16, 3, 600, 2, 8192L, 3));
    }

    @ParameterizedTest(name = "cp{0} ps{1} {3} {4} req bs<={6} chunk {7}")
    @MethodSource("cases")
    void sharedAndReplicatedAgreeBitForBit(int cp, int ps, NsaDims dims, KvDtype dtype, int count, int maxLen,
                                           int maxRequests, long chunk, int samples) {
        CpSharedKvConfig config = Workloads.sharedBsGt1(cp, ps, maxRequests, chunk);
        if (dims == NsaDims.REAL) {
            config = config.toBuilder().model(ModelKind.NSA_MLA).build();
        }
        SyntheticModel model = new SyntheticModel(dims, dtype, 2, 7 + cp);
        List<PrefillRequest> requests = Workloads.requests(cp * 31L + ps, count, maxLen, 50);
        int totalPages = requests.stream().mapToInt(r -> r.seqLen() / ps + 1).sum();
        // ample, decode reservations included: memory never decides, so both runs admit alike
        int pagesPerRank = totalPages + count * (64 / ps + 1) + 2;
        QuerySampler sampler = new QuerySampler(samples, 99);

        Workloads.Rig shared = Workloads.rig(config, PoolLayout.SHARED, pagesPerRank, model, true, sampler, totalPages + 1);
        Workloads.Rig replicated = Workloads.rig(config, PoolLayout.REPLICATED, pagesPerRank, model, true, sampler, totalPages + 1);
        Map<String, PrefillResult> a = run(shared, requests);
        Map<String, PrefillResult> b = run(replicated, requests);

        assertThat(a.keySet()).containsExactlyInAnyOrderElementsOf(requests.stream().map(PrefillRequest::id).toList());
        assertThat(a.values()).allMatch(r -> r instanceof PrefillResult.Completed);
        int prefixHits = 0;
        for (PrefillRequest request : requests) {
            PrefillResult.Completed x = (PrefillResult.Completed) a.get(request.id());
            PrefillResult.Completed y = (PrefillResult.Completed) b.get(request.id());
            assertThat(x.prefixHitTokens()).isEqualTo(y.prefixHitTokens());
            prefixHits += x.prefixHitTokens();
            assertThat(x.pagesSent()).as("every position sent once").isEqualTo((request.seqLen() + ps - 1) / ps);
            assertThat(y.pagesSent()).isEqualTo(x.pagesSent());
            assertThat(x.attention()).isNotEmpty().hasSameSizeAs(y.attention());
            x.attention().forEach((key, out) -> assertSameBits(out, y.attention().get(key), "attention " + key + " of " + request.id()));
            assertThat(shared.receiver().isReady(request.id())).isTrue();
            assertDecodeKv(shared, replicated, model, request);
        }
        if (count > 2 * maxRequests) {
            assertThat(prefixHits).as("the workload exercised prefix hits").isPositive();
        }
        // the shared run stored each logical page once; replication stored it cp times
        assertThat(replicated.group().peakPhysicalPages()).isEqualTo(cp * shared.group().peakPhysicalPages());
        assertThat(replicated.group().physicalPagesInUse()).isEqualTo(cp * shared.group().physicalPagesInUse());
        assertThat(shared.group().physicalPagesInUse()).isEqualTo(shared.group().cachedPages());
        assertThat(shared.group().leakCheck()).isEmpty();
        assertThat(replicated.group().leakCheck()).isEmpty();
    }

    private static Map<String, PrefillResult> run(Workloads.Rig rig, List<PrefillRequest> requests) {
        Map<String, PrefillResult> results = new HashMap<>();
        Flux.fromIterable(requests).transform(rig.pipeline())
                .doOnNext(r -> assertThat(results.put(r.request().id(), r)).as("one result per request").isNull())
                .blockLast(Duration.ofMinutes(2));
        return results;
    }

    /** I-PD-1: decode page D[i] holds the rows of positions i·ps.. (valid rows only), equal across runs and to the synthetic layer. */
    private static void assertDecodeKv(Workloads.Rig shared, Workloads.Rig replicated, SyntheticModel model, PrefillRequest request) {
        KvLayout layout = model.layout();
        PageStore s = shared.receiver().store();
        PageStore r = replicated.receiver().store();
        long[] ds = shared.receiver().pages(request.id());
        long[] dr = replicated.receiver().pages(request.id());
        int ps = s.pageSize();
        int rowBytes = layout.mlaRowBytes();
        int index = model.dims().index();
        byte[] expectedRow = new byte[rowBytes];
        byte[] expectedIndexPage = new byte[(int) layout.indexPageBytes(ps)];
        for (int l = 0; l < model.layerCount(); l++) {
            SyntheticNsaLayer layer = model.layer(l);
            for (int t = 0; t < request.seqLen(); t++) {
                int pos = t / ps;
                int slot = t % ps;
                SyntheticNsaLayer.TokenKv kv = layer.key(request.tokenId(t), t);
                MlaRows.encode(kv.latent(), kv.rope(), layout, expectedRow, 0);
                IndexRows.encode(kv.indexKey(), ps, slot, expectedIndexPage, 0);
                byte[] sharedRow = slice(s, l, KvComponent.MLA, (ds[pos] * ps + slot) * rowBytes, rowBytes);
                assertThat(sharedRow).as("MLA row of token %d, layer %d, %s", t, l, request.id()).isEqualTo(expectedRow);
                assertThat(slice(r, l, KvComponent.MLA, (dr[pos] * ps + slot) * rowBytes, rowBytes)).isEqualTo(sharedRow);
                long pageOff = ds[pos] * s.indexPageBytes();
                long pageOffR = dr[pos] * r.indexPageBytes();
                int scaleBytes = KvLayout.SCALE_BYTES * KvLayout.tiles(index);
                assertThat(slice(s, l, KvComponent.INDEX, pageOff + (long) slot * index, index))
                        .isEqualTo(slice(expectedIndexPage, (long) slot * index, index))
                        .isEqualTo(slice(r, l, KvComponent.INDEX, pageOffR + (long) slot * index, index));
                long scaleAt = (long) ps * index + (long) slot * scaleBytes;
                assertThat(slice(s, l, KvComponent.INDEX, pageOff + scaleAt, scaleBytes))
                        .isEqualTo(slice(expectedIndexPage, scaleAt, scaleBytes))
                        .isEqualTo(slice(r, l, KvComponent.INDEX, pageOffR + scaleAt, scaleBytes));
            }
        }
    }

    private static byte[] slice(PageStore store, int layer, KvComponent component, long from, int len) {
        return store.readBytes(layer, component, from, len);
    }

    private static byte[] slice(byte[] b, long from, int len) {
        return Arrays.copyOfRange(b, (int) from, (int) from + len);
    }

    /** The proof's comparison: every float bit for bit, not within the cross-device tolerance. */
    private static void assertSameBits(float[] shared, float[] replicated, String what) {
        assertThat(bits(shared)).as(what).isEqualTo(bits(replicated));
    }

    @Test
    void theProofTellsApartOutputsThatOnlyTheCrossDeviceToleranceWouldAccept() {
        float[] out = {0.25f, -1.5f, 3.0e-3f};
        float[] oneUlpOff = out.clone();
        oneUlpOff[1] = Math.nextUp(oneUlpOff[1]);
        assertThat(oneUlpOff[1]).as("within the attention tolerance").isCloseTo(out[1], within(2e-5f));
        assertSameBits(out, out.clone(), "equal outputs");
        assertThatThrownBy(() -> assertSameBits(out, oneUlpOff, "one ulp off"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("one ulp off");
        float[] negativeZero = {-0.0f, -1.5f, 3.0e-3f};
        float[] positiveZero = {0.0f, -1.5f, 3.0e-3f};
        assertThatThrownBy(() -> assertSameBits(negativeZero, positiveZero, "signed zeros"))
                .as("-0 and +0 compare equal as floats, not as bits").isInstanceOf(AssertionError.class);
    }

    private static int[] bits(float[] values) {
        return java.util.stream.IntStream.range(0, values.length).map(i -> Float.floatToRawIntBits(values[i])).toArray();
    }
}

package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.model.KvModel;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import reactor.core.publisher.Flux;

/** The model plug-in's contract, through a flow: whatever a model produces is what every stage stores, gathers, journals and sends. */
class ModelPlugInTest {
    private static final int PS = 16;
    private static final CpSharedKvConfig CONFIG = DslTest.CONFIG.toBuilder()
            .hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build()).build();

    @Test
    void everyStageHoldsExactlyTheBytesTheModelProduced(@TempDir Path journal) {
        PatternModel model = new PatternModel(2, KvDtype.FP8_E4M3);
        KvLayout layout = model.layout();
        DecodeReceiver receiver = new DecodeReceiver(1024, PS, layout);
        PrefillPipeline pipeline = KvFlow.prefill(CONFIG).model(model).admit(Admission.batchGate().maxRequests(4)).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64)).write(Write.ownerRows())
                .materialize(Materialize.fullView().sample(new QuerySampler(3, 5))).backup(HiCacheBackup.journal(journal))
                .transfer(PdTransfer.inMemory(receiver)).build();
        List<PrefillRequest> requests = DslTest.requests(6);
        List<PrefillResult> results = pipeline.apply(Flux.fromIterable(requests)).collectList().block(Duration.ofMinutes(2));
        assertThat(results).hasSize(requests.size()).allMatch(r -> r instanceof PrefillResult.Completed);
        HostPageCache cache = new HostPageCache(1L << 30);
        JournalReplayer.replay(journal, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, cache, (n, b) -> { });
        PageStore decoded = receiver.store();
        int rowBytes = layout.mlaRowBytes();
        int attended = 0;
        int journaled = 0;
        for (PrefillResult result : results) {
            PrefillRequest request = result.request();
            long[] pages = receiver.pages(request.id());
            for (int l = 0; l < layout.shape().layers(); l++) {
                for (int t = 0; t < request.seqLen(); t++) {
                    byte[] row = expectedRow(l, request.tokenId(t), t, layout);
                    byte[] page = decoded.readPage(l, KvComponent.MLA, pages[t / PS]);
                    assertThat(Arrays.copyOfRange(page, t % PS * rowBytes, (t % PS + 1) * rowBytes)).as("%s layer %d token %d: MLA row sent",
                            request.id(), l, t).isEqualTo(row);
                    assertIndexRow(decoded.readPage(l, KvComponent.INDEX, pages[t / PS]), l, request.tokenId(t), t);
                }
            }
            for (Map.Entry<Long, float[]> e : ((PrefillResult.Completed) result).attention().entrySet()) {
                int l = (int) (e.getKey() / request.seqLen());
                int t = (int) (e.getKey() % request.seqLen());
                float[] key = new float[PatternModel.LATENT + PatternModel.ROPE];
                MlaRows.decodeKey(expectedRow(l, request.tokenId(t), t, layout), 0, layout, key);
                assertThat(e.getValue()).as("%s layer %d: key %d as the consumer read it from the view", request.id(), l, t).containsExactly(key);
                attended++;
            }
            List<byte[]> hashes = PageHashChain.fullPageHashes(request.tokenIds(), PS);
            for (int p = 0; p < hashes.size(); p++) {
                PageBackup kv = cache.get(hashes.get(p), HiCachePool.KV);
                assertThat(kv).as("%s page %d journaled", request.id(), p).isNotNull();
                int mlaBytes = decoded.mlaPageBytes();
                for (int l = 0; l < layout.shape().layers(); l++) {
                    assertThat(Arrays.copyOfRange(kv.payload(), l * mlaBytes, (l + 1) * mlaBytes)).as("%s page %d layer %d journaled", request.id(), p, l)
                            .isEqualTo(decoded.readPage(l, KvComponent.MLA, pages[p]));
                }
                journaled++;
            }
        }
        assertThat(attended).as("attention outputs checked").isGreaterThan(10);
        assertThat(journaled).as("journaled pages checked").isPositive();
    }

    private static byte[] expectedRow(int layer, int id, int t, KvLayout layout) {
        byte[] row = new byte[layout.mlaRowBytes()];
        MlaRows.encode(PatternModel.pattern(0, layer, id, t), PatternModel.pattern(1, layer, id, t), layout, row, 0);
        return row;
    }

    private static void assertIndexRow(byte[] page, int layer, int id, int t) {
        byte[] expected = new byte[page.length];
        IndexRows.encode(PatternModel.pattern(2, layer, id, t), PS, t % PS, expected, 0);
        byte[] codes = new byte[PatternModel.INDEX];
        float[] scales = new float[1];
        byte[] wantCodes = new byte[PatternModel.INDEX];
        float[] wantScales = new float[1];
        IndexRows.rawRow(page, 0, PS, PatternModel.INDEX, t % PS, codes, 0, scales, 0);
        IndexRows.rawRow(expected, 0, PS, PatternModel.INDEX, t % PS, wantCodes, 0, wantScales, 0);
        assertThat(codes).as("layer %d token %d: index codes sent", layer, t).isEqualTo(wantCodes);
        assertThat(scales).as("layer %d token %d: index scale sent", layer, t).isEqualTo(wantScales);
    }

    @Test
    void buildRefusesAModelWhoseLayoutDoesNotFitTheConfigNamingEachField() {
        CpSharedKvConfig v32 = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(16).model(ModelKind.NSA_MLA).sharedKv(true).bsGt1(true)
                .kvDtype(KvDtype.BF16).build();
        PrefillFlow flow = KvFlow.prefill(v32).model(new PatternModel(1, KvDtype.FP8_E4M3)).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(8)).write(Write.ownerRows()).materialize(Materialize.fullView());
        assertThatThrownBy(flow::build).isInstanceOf(PipelineDefinitionException.class).satisfies(e -> assertThat(
                ((PipelineDefinitionException) e).problems()).contains(
                "model pattern: kvDtype fp8_e4m3 but the config's kvDtype is bf16",
                "model pattern: kind toy-mla but the config's model is nsa-mla",
                "model pattern: latent width 40 but nsa-mla rows have 512",
                "model pattern: rope width 8 but nsa-mla rows have 64",
                "model pattern: index width 24 but nsa-mla rows have 128"));
        PrefillFlow page = KvFlow.prefill(DslTest.CONFIG.toBuilder().pageSize(24).build()).model(new PatternModel(1, KvDtype.FP8_E4M3))
                .admit(Admission.batchGate()).split(Split.inSeq()).own(Ownership.byPageId().pagesPerRank(8)).write(Write.ownerRows())
                .materialize(Materialize.fullView());
        assertThatThrownBy(page::build).isInstanceOf(PipelineDefinitionException.class).satisfies(e -> assertThat(
                ((PipelineDefinitionException) e).problems()).contains("model pattern: toy-mla rows need a power-of-two pageSize, not 24"));
    }

    @Test
    void thePagesOnlyModelIsAModelWithoutBytes() {
        KvModel none = KvModel.pagesOnly();
        assertThat(none.storesBytes()).isFalse();
        assertThat(none.layerCount()).isZero();
        assertThatThrownBy(none::layout).isInstanceOf(IllegalStateException.class)
                .hasMessage("the pages-only model has no byte layout: give the pipeline a model that stores bytes");
        assertThatThrownBy(() -> none.producer(org.kvflow.kernels.api.Devices.java())).isInstanceOf(IllegalStateException.class)
                .hasMessage("the pages-only model has no KV rows to compute: give the pipeline a model that stores bytes");
        assertThatThrownBy(() -> none.consumer(org.kvflow.kernels.api.Devices.java())).isInstanceOf(IllegalStateException.class)
                .hasMessage("the pages-only model has no attention over KV rows: give the pipeline a model that stores bytes");
        PrefillFlow withWrite = KvFlow.prefill(DslTest.CONFIG).model(none).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(8)).write(Write.ownerRows()).materialize(Materialize.fullView());
        assertThatThrownBy(withWrite::build).isInstanceOf(PipelineDefinitionException.class).satisfies(e -> assertThat(
                ((PipelineDefinitionException) e).problems()).contains("write: there are no KV rows to write without a model; give the flow a model"));
    }
}

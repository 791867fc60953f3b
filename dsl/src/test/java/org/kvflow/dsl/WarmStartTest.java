package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/**
 * A run that starts warm: the prompts' pages a first run journaled are restored straight into the
 * new run's pools and prefix cache, its requests hit them on the device, and their decode KV equals
 * the first run's. On the GPU machine, {@code -Dkvflow.test.device=cuda} puts both runs' pools in
 * device memory.
 */
class WarmStartTest {
    private static final CpSharedKvConfig CONFIG = DslTest.CONFIG.toBuilder()
            .hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build()).build();
    private static final int PS = CONFIG.pageSize();

    @TempDir
    Path dir;

    private static PrefillFlow flow(OwnSpec own, DecodeReceiver receiver, @org.jspecify.annotations.Nullable Path journal) {
        PrefillFlow flow = KvFlow.prefill(CONFIG).model(DslTest.MODEL)
                .device(System.getProperty("kvflow.test.device", "java")) // the GPU machine runs it with the pools on cuda
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(own)
                .write(Write.ownerRows())
                .materialize(Materialize.fullView());
        return (journal == null ? flow : flow.backup(HiCacheBackup.journal(journal))).transfer(PdTransfer.inMemory(receiver));
    }

    @Test
    void aWarmRunHitsTheJournaledPagesOnTheDeviceAndDecodesTheSameKv() {
        List<PrefillRequest> cold = DslTest.requests(4).stream().map(r -> new PrefillRequest(r.id(), r.tokenIds(), 0)).toList();
        Path journal = dir.resolve("journal");
        DecodeReceiver first = new DecodeReceiver(8192, PS, DslTest.MODEL.layout());
        Flux.fromIterable(cold).transform(flow(Ownership.byPageId().pagesPerRank(64), first, journal).build())
                .blockLast(Duration.ofMinutes(1));

        List<int[]> prompts = cold.stream().map(PrefillRequest::tokenIds).toList();
        DecodeReceiver second = new DecodeReceiver(8192, PS, DslTest.MODEL.layout());
        PrefillPipeline warm = flow(Ownership.byPageId().pagesPerRank(64).warmStartFrom(journal, prompts), second, null).build();
        List<PrefillRequest> again = cold.stream().map(r -> new PrefillRequest("warm-" + r.id(), r.tokenIds(), 0)).toList();
        PrefillRun run = warm.start(Flux.fromIterable(again));
        List<PrefillResult> results = run.results().collectList().block(Duration.ofMinutes(1));

        assertThat(run.warmStartTokens()).as("every full page of every prompt, restored")
                .containsExactlyElementsOf(cold.stream().map(r -> (long) (r.seqLen() / PS * PS)).toList());
        for (PrefillResult result : results) {
            PrefillRequest request = result.request();
            assertThat(result).isInstanceOf(PrefillResult.Completed.class);
            int hit = ((PrefillResult.Completed) result).prefixHitTokens();
            assertThat(hit).as("%s hit on the device", request.id()).isEqualTo((request.seqLen() - 1) / PS * PS);
            String coldId = request.id().substring("warm-".length());
            assertThat(second.digest(request.id(), request.seqLen())).as("decode KV of %s", request.id())
                    .isEqualTo(first.digest(coldId, request.seqLen()));
        }
        assertThat(run.pools().leakCheck()).isEmpty();
    }

    @Test
    void aWarmStartNeedsThePrefixCacheAndAJournalOfTheFlowsLayout() throws Exception {
        Path empty = Files.createDirectories(dir.resolve("not-a-journal"));
        List<int[]> prompts = List.of(new int[] {1, 2, 3});
        DecodeReceiver receiver = new DecodeReceiver(64, PS, DslTest.MODEL.layout());
        assertThatThrownBy(() -> flow(Ownership.byPageId().pagesPerRank(64).prefixCaching(false).warmStartFrom(empty, prompts), receiver, null).build())
                .isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems())
                        .contains("own: warm start from " + empty + " fills the device prefix cache, but prefix caching is off")
                        .contains("own: warm start from " + empty + ": " + empty + " is not a kvflow journal: kvflow-journal.json is missing"));
    }
}

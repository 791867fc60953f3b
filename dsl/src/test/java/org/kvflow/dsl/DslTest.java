package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.decode.DecodeReceiver;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.util.context.Context;
import org.kvflow.model.synthetic.SyntheticModel;

public class DslTest {
    public static final CpSharedKvConfig CONFIG = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(16).model(ModelKind.TOY_MLA)
            .sharedKv(true).bsGt1(true).chunkedPrefillSize(128L).transferBackend(TransferBackendKind.TCP).kvDtype(KvDtype.FP8_E4M3).build();
    public static final SyntheticModel MODEL = new SyntheticModel(new NsaDims(16, 40, 8, 24, 12), KvDtype.FP8_E4M3, 1, 3);
    /** One page of {@link #MODEL} at page size 16, both pools, every layer: what the metrics count a page as. */
    private static final long PAGE_BYTES = (MODEL.layout().mlaPageBytes(16) + MODEL.layout().indexPageBytes(16)) * MODEL.layerCount();

    public static List<PrefillRequest> requests(int n) {
        SplittableRandom random = new SplittableRandom(n);
        List<PrefillRequest> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int[] tokens = new int[1 + random.nextInt(200)];
            for (int t = 0; t < tokens.length; t++) {
                tokens[t] = random.nextInt(100);
            }
            out.add(new PrefillRequest("q" + i, tokens, 8));
        }
        return out;
    }

    /** CP4 shared KV, the toy model on Java: admit, split, own, write, materialize; the transfer is the caller's. */
    public static PrefillFlow modelFlow() {
        return KvFlow.prefill(CONFIG).model(MODEL)
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64))
                .write(Write.ownerRows())
                .materialize(Materialize.fullView());
    }

    public static PrefillFlow flow(DecodeReceiver receiver) {
        return KvFlow.prefill(CONFIG).model(MODEL)
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64))
                .write(Write.ownerRows())
                .materialize(Materialize.fullView().sample(new QuerySampler(2, 1)))
                .transfer(PdTransfer.inMemory(receiver));
    }

    @Test
    void buildListsEveryProblemWithItsSetting() {
        CpSharedKvConfig prefill = CONFIG.toBuilder().split(SplitMode.ROUND_ROBIN_SPLIT).disaggregationMode(DisaggregationMode.PREFILL)
                .transferBackend(TransferBackendKind.NIXL).build();
        PrefillFlow bad = KvFlow.prefill(prefill).model(MODEL)
                .admit(Admission.batchGate())
                .own(Ownership.byPageId())
                .materialize(Materialize.fullView())
                .split(Split.inSeq())
                .admit(Admission.batchGate());
        assertThatThrownBy(bad::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems()).containsExactly(
                "admit: given 2 times; at most once",
                "split after materialize: stages run admit, split, own, write, materialize, backup, transfer",
                "admit after split: stages run admit, split, own, write, materialize, backup, transfer",
                "config E-CP-3: round-robin CP shared KV is not wired for materialization/PD transfer (split=round-robin-split)",
                "config E-CP-8: toy-mla is for tests; not valid with PD disaggregation (disaggregationMode=prefill)",
                "config E-PD-1: CP shared KV requires a transfer backend with owner filtering + logical-page-position selection (mooncake, tcp) (transferBackend=nixl)",
                "split=in-seq-split but the config's split is round-robin-split",
                "own: size the pools with pagesPerRank or budgetBytes (one of them)",
                "write: missing; a flow with a model writes its KV rows before it materializes them",
                "transfer: required with disaggregationMode=prefill"))
                .hasMessageStartingWith("10 problems: [");
    }

    @Test
    void stagesThatCannotRunAsWrittenAreBuildProblems() {
        PrefillFlow noModel = KvFlow.prefill(CONFIG).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().budgetBytes(1 << 20)).write(Write.ownerRows()).materialize(Materialize.fullView())
                .backup(HiCacheBackup.journal(java.nio.file.Path.of("journal")));
        assertThatThrownBy(noModel::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems()).containsExactly(
                "own: budgetBytes=1048576 needs the model's page bytes: give the flow a model",
                "write: there are no KV rows to write without a model; give the flow a model",
                "backup=journal needs hicache.enabled",
                "backup needs KV bytes: give the flow a model"));
        PrefillFlow transferFirst = modelFlow().transfer(PdTransfer.inMemory(new DecodeReceiver(64, 16, null)))
                .backup(HiCacheBackup.journal(java.nio.file.Path.of("journal")));
        assertThatThrownBy(transferFirst::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems())
                .contains("backup after transfer: stages run admit, split, own, write, materialize, backup, transfer"));
        assertThatThrownBy(() -> modelFlow().device("opencl:99").build()).isInstanceOfSatisfying(PipelineDefinitionException.class,
                e -> assertThat(e.problems()).singleElement().asString().startsWith("device=opencl:99: no kernel device 'opencl:99': found [java"));
    }

    @Test
    void rankProcessesWithoutAProviderOnTheClassPathAreAProblemOfTheDefinition() {
        PrefillFlow flow = KvFlow.prefill(CONFIG).model(MODEL).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64).inRankProcesses()).write(Write.ownerRows()).materialize(Materialize.fullView())
                .transfer(PdTransfer.inMemory(new DecodeReceiver(64, 16, MODEL.layout())));
        Thread thread = Thread.currentThread();
        ClassLoader own = thread.getContextClassLoader();
        thread.setContextClassLoader(new URLClassLoader(new URL[0], null)); // a class path without kvflow-ranks
        try {
            assertThatThrownBy(flow::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems()).containsExactly(
                    "own: inRankProcesses() needs a rank-process provider on the class path (the kvflow-ranks module)"));
        } finally {
            thread.setContextClassLoader(own);
        }
        assertThat(flow.build()).isNotNull(); // with it, the same flow builds
    }

    @Test
    void rankProcessesNeedAModelAndReadingInPlaceNeedsCuda() {
        PrefillFlow onJava = KvFlow.prefill(CONFIG).model(MODEL).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64).inRankProcesses()).write(Write.ownerRows()).materialize(Materialize.fullView().readInPlace())
                .transfer(PdTransfer.inMemory(new DecodeReceiver(64, 16, MODEL.layout())));
        assertThatThrownBy(onJava::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems()).containsExactly(
                "materialize: reading in place maps the rank pools into one CUDA virtual range; it needs device(\"cuda\"), not device(\"java\")"));
        PrefillFlow noModel = KvFlow.prefill(CONFIG).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64).inRankProcesses()).materialize(Materialize.fullView()).device("cuda");
        assertThatThrownBy(noModel::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems())
                .contains("own: rank processes hold KV pages; give the flow a model"));
        assertThat(Ownership.byPageId().pagesPerRank(64).inRankProcesses().toString()).isEqualTo("own(byPageId, 64 pages per rank, prefix cache, in rank processes)");
        PrefillFlow inPlaceWithoutRanks = KvFlow.prefill(CONFIG).model(MODEL).device("cuda").admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64)).write(Write.ownerRows()).materialize(Materialize.fullView().readInPlace())
                .transfer(PdTransfer.inMemory(new DecodeReceiver(64, 16, MODEL.layout())));
        assertThatThrownBy(inPlaceWithoutRanks::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems())
                .contains("materialize: reading in place needs shared KV in rank processes: own(Ownership.byPageId()…inRankProcesses())"));
        assertThat(Materialize.fullView().readInPlace().toString()).isEqualTo("materialize(read in place)");
    }

    /** {@code cuda} builds where a CUDA GPU is (kernels and pools there) and is a build problem naming what exists where none is. */
    @Test
    void aCudaDeviceIsUsedWhereOneExistsAndRefusedWhereNone() {
        try {
            PrefillPipeline onGpu = modelFlow().device("cuda").transfer(PdTransfer.inMemory(new DecodeReceiver(64, 16, MODEL.layout()))).build();
            assertThat(onGpu.device().backend()).isEqualTo("cuda");
        } catch (PipelineDefinitionException e) {
            assertThat(e.problems()).singleElement().asString().startsWith("device=cuda: no kernel device 'cuda': found [java");
        }
    }

    @Test
    void capsGivenToAdmitAreValidatedLikeConfigCaps() {
        PrefillFlow noGate = KvFlow.prefill(CONFIG.toBuilder().bsGt1(false).build()).admit(Admission.batchGate().maxExtendTokens(100))
                .split(Split.inSeq()).own(Ownership.byPageId().pagesPerRank(64)).materialize(Materialize.fullView());
        assertThatThrownBy(noGate::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems())
                .anyMatch(p -> p.startsWith("config E-ADM-2"))
                .anyMatch(p -> p.startsWith("config E-ADM-4")));
    }

    @Test
    void flowsAreImmutableAndPipelinesReusable() {
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillFlow base = KvFlow.prefill(CONFIG).model(MODEL).admit(Admission.batchGate()).split(Split.inSeq());
        PrefillFlow a = base.own(Ownership.byPageId().pagesPerRank(64)).write(Write.ownerRows()).materialize(Materialize.fullView())
                .transfer(PdTransfer.inMemory(receiver));
        assertThat(base.describe()).doesNotContain("own(");
        assertThat(a.describe()).contains("own(byPageId, 64 pages per rank, prefix cache)\n  write(owner rows)\n  materialize(full view)");
        PrefillPipeline pipeline = a.build();
        List<PrefillRequest> first = requests(12);
        StepVerifier.create(Flux.fromIterable(first).transform(pipeline))
                .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
        List<PrefillRequest> second = requests(12).stream().map(r -> new PrefillRequest("again-" + r.id(), r.tokenIds(), 0)).toList();
        PrefillRun run = pipeline.start(Flux.fromIterable(second));
        StepVerifier.create(run.results())
                .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
        assertThat(run.pools().leakCheck()).isEmpty();
    }

    /** A pipeline built once and subscribed twice at the same time: two runs with their own pools, results and facts. */
    @Test
    void twoSubscriptionsAreTwoIndependentRuns() {
        DecodeReceiver receiver = new DecodeReceiver(8192, 16, MODEL.layout());
        PrefillPipeline pipeline = flow(receiver).build();
        List<PrefillRequest> left = requests(10).stream().map(r -> new PrefillRequest("left-" + r.id(), r.tokenIds(), 0)).toList();
        List<PrefillRequest> right = requests(10).stream().map(r -> new PrefillRequest("right-" + r.id(), r.tokenIds(), 0)).toList();
        PrefillRun a = pipeline.start(Flux.fromIterable(left));
        PrefillRun b = pipeline.start(Flux.fromIterable(right));
        List<List<PrefillResult>> results = reactor.core.publisher.Mono.zip(a.results().collectList(), b.results().collectList(),
                (x, y) -> List.of(x, y)).block(Duration.ofMinutes(1));
        assertThat(results.get(0)).extracting(r -> r.request().id()).containsExactlyInAnyOrderElementsOf(left.stream().map(PrefillRequest::id).toList());
        assertThat(results.get(1)).extracting(r -> r.request().id()).containsExactlyInAnyOrderElementsOf(right.stream().map(PrefillRequest::id).toList());
        assertThat(a.group()).isNotSameAs(b.group());
        assertThat(a.group().peakPhysicalPages()).isPositive();
        assertThat(a.peakViewBytes()).isPositive();
        for (PrefillRequest request : left) {
            assertThat(receiver.digest(request.id(), request.seqLen()))
                    .as("the same prompt gives the same KV in either run")
                    .isEqualTo(receiver.digest("right-" + request.id().substring("left-".length()), request.seqLen()));
        }
    }

    @Test
    void metricsCountWhatHappened() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillPipeline pipeline = flow(receiver).metrics(registry).build();
        List<PrefillRequest> reqs = new ArrayList<>(requests(10));
        reqs.add(new PrefillRequest("too-big", new int[5000], 0));
        StepVerifier.create(Flux.fromIterable(reqs).transform(pipeline).contextWrite(Context.of(PrefillPipeline.TRACE_KEY, "t-1")))
                .expectNextCount(11).verifyComplete();
        assertThat(registry.get("kvflow.requests").tag("outcome", "completed").tag("layout", "shared").counter().count()).isEqualTo(10);
        assertThat(registry.find("kvflow.requests").tag("layout", "replicated").counters()).as("the layout tag keeps runs apart").isEmpty();
        assertThat(registry.getMeters()).allSatisfy(m -> assertThat(m.getId().getTag("layout")).isEqualTo("shared"))
                .allSatisfy(m -> assertThat(m.getId().getTag("pipeline")).as("the default name").isEqualTo("kvflow"))
                .allSatisfy(m -> assertThat(m.getId().getTag("run")).as("no tag that grows per run").isNull())
                .allSatisfy(m -> assertThat(m.getId().getDescription()).as(m.getId().getName()).isNotBlank());
        assertThat(registry.get("kvflow.rejections").tag("code", "ADM-REJECTED").counter().count()).isEqualTo(1);
        assertThat(registry.get("kvflow.batches").counter().count()).isPositive();
        assertThat(registry.get("kvflow.transfer.bytes").counter().count()).as("every page of every completed request, once, all layers")
                .isEqualTo((double) reqs.stream().limit(10).mapToLong(r -> (r.seqLen() + 15) / 16).sum() * PAGE_BYTES);
        assertThat(registry.get("kvflow.transfer.latency").timer().count()).isPositive();
        assertThat(registry.get("kvflow.tokens").counter().count()).isEqualTo(reqs.stream().limit(10).mapToInt(PrefillRequest::seqLen).sum());
        assertThat(registry.find("kvflow.pages.inuse").gauges()).as("one per rank, readable after the run").hasSize(4);
        double cached = 0;
        for (int r = 0; r < 4; r++) {
            String rank = Integer.toString(r);
            double inUse = registry.get("kvflow.pages.inuse").tag("rank", rank).gauge().value();
            double held = registry.get("kvflow.pages.cached").tag("rank", rank).gauge().value();
            double free = registry.get("kvflow.pages.free").tag("rank", rank).gauge().value();
            assertThat(inUse).as("rank %s: no request holds a page once the run ended", rank).isZero();
            assertThat(inUse + held + free).as("rank %s: the three add up to its pool", rank).isEqualTo(64);
            cached += held;
        }
        assertThat(cached).as("finished requests' full pages stay as prefix cache, counted as cached, not in use").isPositive();
        assertThat(registry.get("kvflow.pages.peak").gauge().value()).isPositive();
        assertThat(registry.find("kvflow.pages.host.bytes").gauges()).as("one per page-moving stage, none per run")
                .extracting(g -> g.getId().getTag("stage")).containsExactlyInAnyOrder("write", "materialize", "backup", "transfer", "unattributed");
        assertThat(registry.find("kvflow.pages.host.bytes").gauges()).as("the java device keeps every page on the host: nothing crosses")
                .allSatisfy(g -> assertThat(g.value()).isZero());
        StepVerifier.create(Flux.fromIterable(requests(3)).map(r -> new PrefillRequest("again-" + r.id(), r.tokenIds(), 0)).transform(pipeline))
                .expectNextCount(3).verifyComplete();
        assertThat(registry.find("kvflow.pages.inuse").gauges()).as("the next run's replace them: no set per run").hasSize(4);
    }

    @Test
    void theViewBytesCountEveryPageABatchReferences() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PrefillPipeline pipeline = flow(new DecodeReceiver(4096, 16, MODEL.layout())).metrics(registry).build();
        StepVerifier.create(Flux.just(new PrefillRequest("forty", new int[40], 0)).transform(pipeline)).expectNextCount(1).verifyComplete();
        assertThat(registry.get("kvflow.batches").counter().count()).isEqualTo(1);
        assertThat(registry.get("kvflow.materialized.bytes").counter().count()).as("40 tokens: three pages of view").isEqualTo(3.0 * PAGE_BYTES);
        assertThat(registry.get("kvflow.materialized.peak.bytes").gauge().value()).isEqualTo(3.0 * PAGE_BYTES);
        StepVerifier.create(Flux.just(new PrefillRequest("seventeen", new int[17], 0)).transform(pipeline)).expectNextCount(1).verifyComplete();
        assertThat(registry.get("kvflow.materialized.bytes").counter().count()).as("two more").isEqualTo(5.0 * PAGE_BYTES);
    }

    @Test
    void aFinishedRunsPoolsSayWhatTheyHold() {
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        List<PrefillRequest> reqs = requests(12);
        PrefillRun run = flow(receiver).build().start(Flux.fromIterable(reqs));
        StepVerifier.create(run.results()).expectNextCount(12).verifyComplete();
        RunPools pools = run.pools();
        assertThat(pools.ranks()).isEqualTo(4);
        assertThat(pools.liveRequests()).isZero();
        assertThat(pools.physicalPagesInUse()).as("all ranks together")
                .isEqualTo(java.util.stream.IntStream.range(0, 4).mapToLong(pools::physicalPagesOnRank).sum());
        assertThat(pools.cachedPages()).as("finished requests' full pages stay cached").isPositive();
        assertThat(pools.physicalPagesInUse()).as("under shared KV a cached page is held once, by its owner").isEqualTo(pools.cachedPages());
        assertThat(pools.peakPhysicalPages()).isGreaterThanOrEqualTo(pools.physicalPagesInUse()).isPositive();
        assertThat(pools.evictedPages()).as("the pools had room for everything").isZero();
        assertThat(pools.hostTokensServed()).as("no host tier").isZero();
        assertThat(pools.capacity().pageSize()).isEqualTo(16);
        PrefillRequest longest = reqs.stream().max(java.util.Comparator.comparingInt(PrefillRequest::seqLen)).orElseThrow();
        assertThat(pools.cachedPrefixTokens(new PromptProbe(longest, 16))).as("its full pages, at least one token short of the prompt")
                .isEqualTo((longest.seqLen() - 1) / 16 * 16);
        assertThat(pools.leakCheck()).isEmpty();
    }

    @Test
    void cancellationReleasesEverything() {
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillRun run = flow(receiver).build().start(Flux.fromIterable(requests(30)));
        StepVerifier.create(run.results(), 2)
                .expectNextCount(2).thenCancel().verify(Duration.ofSeconds(10));
        // the run's stages may still be finishing a batch on boundedElastic: wait for the release
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (run.pools().liveRequests() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(run.pools().liveRequests()).isZero();
        assertThat(run.pools().leakCheck()).isEmpty();
    }

    @Test
    void anInjectedSchedulerRunsTheStages() {
        reactor.core.scheduler.Scheduler single = reactor.core.scheduler.Schedulers.newSingle("kvflow-stages");
        try {
            List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
            PrefillPipeline pipeline = flow(new DecodeReceiver(4096, 16, MODEL.layout())).scheduler(single).build();
            StepVerifier.create(Flux.fromIterable(requests(4)).transform(pipeline).doOnNext(r -> threads.add(Thread.currentThread().getName())))
                    .expectNextCount(4).verifyComplete();
            assertThat(threads).allMatch(t -> t.startsWith("kvflow-stages"));
        } finally {
            single.dispose();
        }
    }

    @Test
    void twoNamedPipelinesInOneRegistryKeepTheirMetersApart() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillPipeline left = flow(receiver).name("left").metrics(registry).device("java").build();
        PrefillPipeline right = flow(receiver).metrics(registry).name("right").build();
        StepVerifier.create(Flux.fromIterable(requests(3)).transform(left)).expectNextCount(3).verifyComplete();
        StepVerifier.create(Flux.fromIterable(requests(5)).map(r -> new PrefillRequest("r-" + r.id(), r.tokenIds(), 0)).transform(right))
                .expectNextCount(5).verifyComplete();
        assertThat(registry.get("kvflow.requests").tag("pipeline", "left").tag("outcome", "completed").counter().count()).isEqualTo(3);
        assertThat(registry.get("kvflow.requests").tag("pipeline", "right").tag("outcome", "completed").counter().count()).isEqualTo(5);
        assertThat(registry.find("kvflow.pages.inuse").gauges()).as("each pipeline keeps its own per-rank gauges").hasSize(8);
        assertThatThrownBy(() -> flow(receiver).name(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a pipeline's name is its meters' pipeline tag: give a non-blank name");
    }
}

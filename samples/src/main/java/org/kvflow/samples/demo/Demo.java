package org.kvflow.samples.demo;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.HiCacheBackup;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.OwnSpec;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillFlow;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.DecodeServerProcess;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.cudaipc.CudaIpcDecodeServerMain;
import org.kvflow.transport.cudaipc.CudaIpcEngine;
import org.kvflow.transport.ucx.UcxDecodeServerMain;
import org.kvflow.transport.ucx.UcxEngine;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.model.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.decode.DecodeReceiver;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * The demo: a CP shared-KV prefill pipeline on a GLM-5-like synthetic NSA/MLA model (latent
 * 512 + rope 64, index 128, fp8, 2 layers, page 64) with bs>1 admission, a HiCache journal and PD
 * transfer to a decode process (over TCP, or with the page bytes by UCX); then the same requests through the replicated baseline
 * into an in-process receiver. Every request's decode KV must equal the baseline's.
 */
public final class Demo {
    /** Pages per rank: N ≥ 100 keeps the capacity ratio within 1 % of cp (contract §3.4). */
    public static final int PAGES_PER_RANK = 1024;
    /** Tokens per page in both runs. */
    public static final int PAGE_SIZE = 64;

    private final int cpSize;
    private final int requests;
    private final int maxLen;
    private final long seed;
    private final String backend;
    private final MeterRegistry registry;
    private final long hostBytes;
    private final boolean rankProcesses;
    private final String transfer;

    /**
     * @param hostBytes     capacity of the host cache the final replay of the journal fills
     * @param rankProcesses hold each CP rank's pools in a process of its own, both layouts
     *                      ({@code inRankProcesses()}: in place on cuda, by staged copies elsewhere)
     * @param transfer      the PD transfer engine to the decode process: {@code tcp} (page bytes in frames), {@code ucx}
     *                      (one-sided UCX puts into its pool in native memory) or {@code cuda-ipc} (GPU-to-GPU copies into its
     *                      pool in GPU memory; needs a cuda backend)
     */
    public Demo(int cpSize, int requests, int maxLen, long seed, String backend, MeterRegistry registry, long hostBytes, boolean rankProcesses,
                String transfer) {
        if (!transfer.equals("tcp") && !transfer.equals(UcxEngine.NAME) && !transfer.equals(CudaIpcEngine.NAME)) {
            throw new IllegalArgumentException("tcp, ucx or cuda-ipc, not " + transfer);
        }
        if (transfer.equals(CudaIpcEngine.NAME) && !backend.startsWith("cuda")) {
            throw new IllegalArgumentException("cuda-ipc copies GPU to GPU: it needs --backend cuda, not " + backend);
        }
        this.transfer = transfer;
        this.rankProcesses = rankProcesses;
        this.hostBytes = hostBytes;
        this.cpSize = cpSize;
        this.requests = requests;
        this.maxLen = maxLen;
        this.seed = seed;
        this.backend = Objects.requireNonNull(backend, "backend");
        this.registry = registry;
    }

    /** {@return whether each CP rank's pools live in a process of its own} */
    public boolean rankProcesses() {
        return rankProcesses;
    }

    /** The demo's config: shared KV, in-seq CP, bs>1, prefill mode over tcp, HiCache on. */
    public CpSharedKvConfig config() {
        return CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(cpSize).pageSize(PAGE_SIZE).model(ModelKind.NSA_MLA).sharedKv(true)
                .bsGt1(true).maxRequests(16L).chunkedPrefillSize(4096L).kvDtype(KvDtype.FP8_E4M3)
                .disaggregationMode(DisaggregationMode.PREFILL).transferBackend(TransferBackendKind.TCP)
                .hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build())
                .build();
    }

    /** {@return the demo's model: two synthetic layers at V3.2 widths, fp8 rows} */
    public SyntheticModel model() {
        return syntheticModel(seed);
    }

    /** {@return two synthetic layers at DeepSeek V3.2's widths, fp8 rows, from {@code seed}: the demo's model, also what {@code kvflow trace --model synthetic} writes} */
    public static SyntheticModel syntheticModel(long seed) {
        return SyntheticModel.builder().dims(new NsaDims(16, 512, 64, 128, 2048)).dtype(KvDtype.FP8_E4M3).layers(2).seed(seed).build();
    }

    private PrefillFlow flow(OwnSpec own) {
        OwnSpec sized = own.pagesPerRank(PAGES_PER_RANK).prefixCaching(false);
        return KvFlow.prefill(config()).model(model()).device(backend).metrics(registry).admit(Admission.batchGate())
                .split(Split.inSeq()).own(rankProcesses ? sized.inRankProcesses() : sized).write(Write.ownerRows())
                .materialize(Materialize.fullView().sample(new QuerySampler(2, seed)));
    }

    /** Builds the shared pipeline without running it (so a bad backend is reported before anything starts). */
    public PrefillPipeline checkShared(Path journal) {
        return flow(Ownership.byPageId()).backup(HiCacheBackup.journal(journal))
                .transfer(PdTransfer.inMemory(new DecodeReceiver(2, PAGE_SIZE, null))).build();
    }

    /**
     * Runs both pipelines, sampling each rank's physical pages every 2 ms when {@code pagesTimeline}
     * is set (a sampler thread beside the timed run: only for a report that charts it).
     *
     * @param journal       where the HiCache journal goes
     * @param progress      called with (done, total) as requests finish
     * @param pagesTimeline sample the pages held per rank for {@link DemoReport#sharedPages()} and
     *                      {@link DemoReport#replicatedPages()} (empty otherwise)
     */
    public DemoReport run(Path journal, Consumer<int[]> progress, boolean pagesTimeline) throws IOException {
        List<PrefillRequest> workload = DemoWorkload.generate(seed, requests, maxLen);
        SyntheticModel model = model();
        // the baseline: replicated CP, decode in this process
        DecodeReceiver local = new DecodeReceiver(4096, PAGE_SIZE, model.layout());
        PrefillPipeline replicated = flow(Ownership.replicated()).transfer(PdTransfer.inMemory(local)).build();
        Map<String, Long> expected = new HashMap<>();
        AtomicInteger done = new AtomicInteger();
        PagesTimeline replicatedPages = new PagesTimeline();
        PagesTimeline sharedPages = new PagesTimeline();
        PrefillRun replicatedRun = replicated.start(Flux.fromIterable(workload));
        if (pagesTimeline) {
            replicatedPages.start(replicatedRun::pools, 2);
        }
        replicatedRun.results().doFinally(signal -> replicatedPages.close()).doOnNext(result -> {
            if (result instanceof PrefillResult.Completed) {
                expected.put(result.request().id(), local.digest(result.request().id(), result.request().seqLen()));
            }
            local.release(result.request().id());
            progress.accept(new int[] {done.incrementAndGet(), 2 * requests});
        }).blockLast(Duration.ofMinutes(30));
        long peakReplicated = Objects.requireNonNull(replicatedRun.pools()).peakPhysicalPages();

        Class<?> decodeMain = switch (transfer) {
            case UcxEngine.NAME -> UcxDecodeServerMain.class;
            case CudaIpcEngine.NAME -> CudaIpcDecodeServerMain.class;
            default -> DecodeServerMain.class;
        };
        try (DecodeServerProcess decode = DecodeServerProcess.start(decodeMain, "2g", 0, 4096, PAGE_SIZE, model.layout());
             TcpTransferBackend probe = new TcpTransferBackend("127.0.0.1", decode.port(), PAGE_SIZE, model.layout(), cpSize,
                     Duration.ofSeconds(30))) {
            PrefillPipeline shared = flow(Ownership.byPageId()).backup(HiCacheBackup.journal(journal))
                    .transfer(PdTransfer.engine(transfer, "127.0.0.1", decode.port(), TcpTarget.DEFAULT_TIMEOUT))
                    .build();
            AtomicInteger completed = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            FirstFailures firstFailures = new FirstFailures();
            AtomicInteger checks = new AtomicInteger();
            AtomicLong tokens = new AtomicLong();
            long start = System.nanoTime();
            PrefillRun sharedRun = shared.start(Flux.fromIterable(workload));
            if (pagesTimeline) {
                sharedPages.start(sharedRun::pools, 2);
            }
            sharedRun.results().doFinally(signal -> sharedPages.close()).concatMap(result -> {
                String id = result.request().id();
                progress.accept(new int[] {done.incrementAndGet(), 2 * requests});
                if (result instanceof PrefillResult.Failed f) {
                    failed.incrementAndGet();
                    firstFailures.add(f);
                    return Mono.empty();
                }
                completed.incrementAndGet();
                tokens.addAndGet(result.request().seqLen());
                return probe.digest(id, result.request().seqLen()).doOnNext(digest -> {
                    if (digest.ready() && expected.containsKey(id) && digest.crc() == expected.get(id)) {
                        checks.incrementAndGet();
                    }
                }).then(probe.abort(id)); // decode is done with it: free its pages there
            }, 1).blockLast(Duration.ofMinutes(30));
            double seconds = (System.nanoTime() - start) / 1e9;
            ReplayReport replay = JournalReplayer.replay(journal, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP,
                    new HostPageCache(hostBytes), (r, b) -> { });
            return new DemoReport(cpSize, requests, completed.get(), failed.get(), firstFailures.lines(), tokens.get(),
                    sharedCount(registry, "kvflow.batches"), seconds,
                    Objects.requireNonNull(sharedRun.pools()).peakPhysicalPages(), peakReplicated, PAGES_PER_RANK,
                    Objects.requireNonNull(sharedRun.pools()).capacity().capacityRatio(cpSize), sharedRun.peakViewBytes(),
                    sharedCount(registry, "kvflow.transfer.bytes"), transfer, decode.pid(), replay.records(),
                    replay.rejected().size(), checks.get(), shared.device().toString(), sharedPages, replicatedPages);
        }
    }

    /**
     * The shared layout's count of counter {@code name}, 0 when the run never created it (every
     * transfer refused, say, leaves no transfer bytes): the report states what happened instead of
     * failing on a meter that is not there.
     */
    static long sharedCount(MeterRegistry registry, String name) {
        Counter counter = registry.find(name).tag("layout", "shared").counter();
        return counter == null ? 0 : (long) counter.count();
    }
}

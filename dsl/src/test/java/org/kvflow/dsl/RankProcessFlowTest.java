package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/**
 * The same flow with each CP rank's pool in a rank process of its own ({@code inRankProcesses()})
 * and with pools of its own decodes the same KV for every request, and the processes' pages all
 * come back: here on the Java heap (the pipeline reaches the ranks' pools by staged copies), on
 * the GPU machine on cuda ({@link RankProcessFlowGpuTest}, pools opened in place).
 */
class RankProcessFlowTest {
    static PrefillFlow flow(String device, OwnSpec own, MaterializeSpec materialize, DecodeReceiver receiver) {
        return KvFlow.prefill(DslTest.CONFIG).model(DslTest.MODEL).device(device)
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(own)
                .write(Write.ownerRows())
                .materialize(materialize)
                .transfer(PdTransfer.inMemory(receiver));
    }

    /** Runs the flow on {@code device} with pools of its own and in rank processes; the same KV, every page back. */
    static void decodesWhatTheInProcessFlowDecodes(String device) {
        List<PrefillRequest> requests = DslTest.requests(6);
        int ps = DslTest.CONFIG.pageSize();
        DecodeReceiver own = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        Flux.fromIterable(requests).transform(flow(device, Ownership.byPageId().pagesPerRank(64), Materialize.fullView(), own).build())
                .blockLast(Duration.ofMinutes(2));
        DecodeReceiver processes = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        PrefillRun run = flow(device, Ownership.byPageId().pagesPerRank(64).inRankProcesses(), Materialize.fullView(), processes).build()
                .start(Flux.fromIterable(requests));
        List<PrefillResult> results = run.results().collectList().block(Duration.ofMinutes(2));
        assertThat(results).hasSize(requests.size()).allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
        for (PrefillRequest r : requests) {
            assertThat(processes.digest(r.id(), r.seqLen())).as(r.id()).isEqualTo(own.digest(r.id(), r.seqLen()));
        }
        assertThat(run.pools().leakCheck()).isEmpty();
    }

    @Test
    void aFlowOnRankProcessesDecodesWhatTheInProcessFlowDecodes() {
        decodesWhatTheInProcessFlowDecodes("java");
    }

    /**
     * A rank process killed mid-run: requests holding pages on it fail naming it, the flow restarts
     * it by itself (counted), and the requests sent after that complete with the in-process flow's KV.
     */
    @Test
    void aRankProcessThatDiesIsRestartedAndTheRunKeepsServing() throws Exception {
        List<PrefillRequest> all = DslTest.requests(10);
        List<PrefillRequest> before = all.subList(0, 5);
        List<PrefillRequest> after = all.subList(5, 10);
        int ps = DslTest.CONFIG.pageSize();
        DecodeReceiver own = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        Flux.fromIterable(all).transform(flow("java", Ownership.byPageId().pagesPerRank(64), Materialize.fullView(), own).build())
                .blockLast(Duration.ofMinutes(2));

        LiveRun live = LiveRun.onRankProcesses(ps);
        before.subList(0, 2).forEach(live.input()::tryEmitNext);
        java.util.List<PrefillResult> seen = new ArrayList<>();
        seen.add(java.util.Objects.requireNonNull(live.results().poll(2, java.util.concurrent.TimeUnit.MINUTES)));
        ProcessHandle victim = rankProcess(2);
        victim.destroyForcibly();
        before.subList(2, 5).forEach(live.input()::tryEmitNext);
        await(() -> live.registry().find("kvflow.ranks.restarted").tag("rank", "2").counter() != null);
        long restarted = rankProcess(2).pid();
        after.forEach(live.input()::tryEmitNext);
        live.input().tryEmitComplete();
        live.done().block(Duration.ofMinutes(2));
        live.results().drainTo(seen);

        assertThat(seen).hasSize(all.size());
        assertThat(seen.stream().map(r -> r.request().id())).as("one result per request, none twice").doesNotHaveDuplicates();
        assertThat(live.registry().get("kvflow.ranks.lost").tag("rank", "2").counter().count()).isEqualTo(1.0);
        assertThat(live.registry().get("kvflow.ranks.restarted").tag("rank", "2").counter().count()).isEqualTo(1.0);
        assertThat(restarted).as("a new process serves rank 2").isNotEqualTo(victim.pid());
        for (PrefillResult r : seen) {
            if (r instanceof PrefillResult.Failed f) {
                assertThat(before).as("only requests sent before the restart fail").contains(r.request());
                assertThat(f.error()).isInstanceOf(org.kvflow.ranks.RankLostException.class).hasMessageStartingWith("rank 2 is lost: ");
            } else {
                assertThat(live.receiver().digest(r.request().id(), r.request().seqLen())).as(r.request().id())
                        .isEqualTo(own.digest(r.request().id(), r.request().seqLen()));
            }
        }
        assertThat(seen).filteredOn(r -> after.contains(r.request())).hasSize(after.size())
                .allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
        assertThat(live.run().pools().leakCheck()).isEmpty();
    }

    @Test
    void requestsThatComeWhileALostRankRestartsWaitForItAndAreServed() throws Exception {
        List<PrefillRequest> all = DslTest.requests(8);
        int ps = DslTest.CONFIG.pageSize();
        LiveRun live = LiveRun.onRankProcesses(ps);
        live.input().tryEmitNext(all.getFirst());
        assertThat(live.results().poll(2, java.util.concurrent.TimeUnit.MINUTES)).isInstanceOf(PrefillResult.Completed.class);
        rankProcess(1).destroyForcibly();
        await(() -> live.registry().find("kvflow.ranks.lost").tag("rank", "1").counter() != null);
        assertThat(live.registry().find("kvflow.ranks.restarted").tag("rank", "1").counter()).as("the restart takes a JVM's start").isNull();
        all.subList(1, all.size()).forEach(live.input()::tryEmitNext); // while rank 1 starts again
        live.input().tryEmitComplete();
        live.done().block(Duration.ofMinutes(2));
        List<PrefillResult> later = new ArrayList<>();
        live.results().drainTo(later);
        assertThat(later).hasSize(all.size() - 1).allSatisfy(r -> assertThat(r).as(r.request().id()).isInstanceOf(PrefillResult.Completed.class));
        assertThat(live.registry().get("kvflow.ranks.restarted").tag("rank", "1").counter().count()).isEqualTo(1.0);
        assertThat(live.run().pools().leakCheck()).isEmpty();
    }

    /** A run on four rank processes fed request by request, its results queued as they come and its end awaitable. */
    private record LiveRun(io.micrometer.core.instrument.simple.SimpleMeterRegistry registry, DecodeReceiver receiver,
                           reactor.core.publisher.Sinks.Many<PrefillRequest> input, PrefillRun run,
                           java.util.concurrent.BlockingQueue<PrefillResult> results, reactor.core.publisher.Mono<Void> done) {
        static LiveRun onRankProcesses(int pageSize) {
            io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            DecodeReceiver receiver = new DecodeReceiver(8192, pageSize, DslTest.MODEL.layout());
            reactor.core.publisher.Sinks.Many<PrefillRequest> input = reactor.core.publisher.Sinks.many().unicast().onBackpressureBuffer();
            PrefillRun run = flow("java", Ownership.byPageId().pagesPerRank(64).inRankProcesses(), Materialize.fullView(), receiver).metrics(registry)
                    .build().start(input.asFlux());
            java.util.concurrent.BlockingQueue<PrefillResult> results = new java.util.concurrent.LinkedBlockingQueue<>();
            reactor.core.publisher.Mono<Void> done = run.results().doOnNext(results::add).then().cache();
            done.subscribe();
            return new LiveRun(registry, receiver, input, run, results, done);
        }
    }

    /** The live rank process of rank {@code rank} this JVM started (its command line from /proc: the JDK drops long ones). */
    private static ProcessHandle rankProcess(int rank) {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).filter(p -> {
            List<String> args;
            try {
                args = List.of(new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                        java.nio.charset.StandardCharsets.UTF_8).split("\0"));
            } catch (java.io.IOException e) {
                return false; // it ended meanwhile
            }
            int main = args.indexOf(org.kvflow.ranks.RankProcessMain.class.getName());
            return main >= 0 && main + 1 < args.size() && args.get(main + 1).equals(Integer.toString(rank));
        }).findFirst().orElseThrow(() -> new AssertionError("no live process of rank " + rank));
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited a minute").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}

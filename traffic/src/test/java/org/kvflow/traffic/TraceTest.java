package org.kvflow.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.model.KvDtype;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.model.synthetic.SyntheticModel;

/** Traces read and checked line by line, prompts derived from block hashes, and the ideal prefix hits counted independently. */
class TraceTest {
    @TempDir
    Path dir;

    static Path mooncake() {
        try {
            return Path.of(TraceTest.class.getClassLoader().getResource("traces/mooncake-synthetic-trace.jsonl").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private Path file(String... lines) throws IOException {
        Path f = dir.resolve("t.jsonl");
        Files.write(f, List.of(lines));
        return f;
    }

    @Test
    void theMooncakeTraceReadsWholeAndItsIdealHitRatioIsTheDocumentedOne() {
        List<TraceRequest> trace = TraceFile.read(mooncake());
        assertThat(trace).hasSize(3_993);
        assertThat(trace.stream().mapToLong(TraceRequest::inputLength).sum()).isEqualTo(61_194_628L);
        assertThat(trace.stream().mapToInt(TraceRequest::inputLength).max().orElseThrow()).isEqualTo(191_378);
        // an independent count: per request, the leading blocks any earlier request had, in tokens
        Map<Long, Boolean> seen = new HashMap<>();
        long hit = 0;
        long total = 0;
        for (TraceRequest r : trace) {
            int k = 0;
            for (long id : r.hashIds()) {
                if (!seen.containsKey(id)) {
                    break;
                }
                k++;
            }
            hit += Math.min(512L * k, r.inputLength());
            total += r.inputLength();
            for (long id : r.hashIds()) {
                seen.put(id, true);
            }
        }
        assertThat(IdealHits.ratio(trace)).isEqualTo((double) hit / total).isCloseTo(0.6512, org.assertj.core.data.Offset.offset(0.00005));
    }

    @Test
    void promptsAreAFunctionOfTheirBlocksHashes() {
        TraceRequest a = new TraceRequest(1, 0, 1_300, 1, new long[] {7, 8, 9});
        TraceRequest b = new TraceRequest(2, 0, 1_200, 1, new long[] {7, 8, 10});
        TraceRequest c = new TraceRequest(3, 0, 1_300, 1, new long[] {7, 8, 9});
        int[] ta = TraceTokens.of(a);
        int[] tb = TraceTokens.of(b);
        assertThat(ta).hasSize(1_300).isEqualTo(TraceTokens.of(c));
        int first = 0;
        while (first < tb.length && ta[first] == tb[first]) {
            first++;
        }
        assertThat(first).as("the first token that differs: block 2's").isEqualTo(2 * 512);
        assertThat(java.util.Arrays.stream(ta).allMatch(t -> t >= 0 && t < TraceTokens.VOCABULARY)).as("token ids in the vocabulary").isTrue();
        // the ids themselves, worked out apart from this code (64-bit mix of hash and position, unsigned, modulo the vocabulary;
        // the first two mix to 2^63 or more): the prompts, and so the trace figures, stay the same from one build to the next
        assertThat(new int[] {ta[0], ta[1], ta[512 + 1], ta[1_299]}).containsExactly(72_425, 51_247, 77_840, 6_633);
    }

    @Test
    void badLinesAreRefusedWithTheirNumber() throws IOException {
        String ok = "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 2, \"hash_ids\": [1, 2]}";
        Path missing = file(ok, "{\"timestamp\": 6, \"output_length\": 2, \"hash_ids\": [1]}");
        assertThatThrownBy(() -> TraceFile.read(missing)).isInstanceOf(TraceFormatException.class)
                .hasMessage(missing + ":2: input_length missing or not an integer");
        Path negative = file("{\"timestamp\": 6, \"input_length\": -3, \"output_length\": 2, \"hash_ids\": []}");
        assertThatThrownBy(() -> TraceFile.read(negative)).hasMessage(negative + ":1: input_length -3 is negative");
        Path tooMany = file(ok, "", "{\"timestamp\": 9, \"input_length\": 100, \"output_length\": 2, \"hash_ids\": [1, 2]}");
        assertThatThrownBy(() -> TraceFile.read(tooMany)).hasMessage(tooMany + ":3: 2 hash ids for input_length 100 (1 blocks of 512)");
        Path backwards = file(ok, "{\"timestamp\": 4, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}");
        assertThatThrownBy(() -> TraceFile.read(backwards)).hasMessage(backwards + ":2: timestamp 4 is before the previous line's 5");
        Path notJson = file("timestamp,input_length");
        assertThatThrownBy(() -> TraceFile.read(notJson)).hasMessageStartingWith(notJson + ":1: not a JSON object");
        assertThat(TraceFile.read(file(ok))).singleElement().satisfies(r -> assertThat(r.hashIds()).containsExactly(1, 2));
    }

    @Test
    void aSmallTraceHitsAtLeastAsOftenSharedAsReplicatedAndAnUnboundedCacheHitsTheIdeal() {
        List<TraceRequest> trace = new ArrayList<>(TraceFile.read(mooncake()).subList(0, 60));
        for (int i = 0; i < trace.size(); i++) { // shorter prompts for a quick test: the first 8 blocks of each
            TraceRequest r = trace.get(i);
            int blocks = Math.min(8, r.hashIds().length);
            trace.set(i, new TraceRequest(r.line(), r.timestampMs(), Math.min(r.inputLength(), blocks * 512), r.outputLength(),
                    java.util.Arrays.copyOf(r.hashIds(), blocks)));
        }
        TraceReplay tight = new TraceReplay(4, 64, 160);
        LayoutReport shared = tight.replay(trace, true);
        LayoutReport replicated = tight.replay(trace, false);
        assertThat(shared.completed()).isEqualTo(trace.size());
        assertThat(shared.hitTokens()).as("shared KV's pools hold cp times the pages").isGreaterThanOrEqualTo(replicated.hitTokens());
        assertThat(shared.hitTokens()).isGreaterThan(replicated.hitTokens());
        long[] ideal = IdealHits.perRequest(trace);
        long idealTokens = java.util.Arrays.stream(ideal).sum();
        // a page is cached whole: a request's hits end at its last full page, so count the ideal in whole pages too
        long idealPages = 0;
        for (int r = 0; r < trace.size(); r++) {
            idealPages += Math.min(ideal[r], (trace.get(r).inputLength() - 1) / 64 * 64L) / 64 * 64;
        }
        LayoutReport unbounded = new TraceReplay(4, 64, 20_000).replay(trace, true);
        assertThat(unbounded.hitTokens()).as("an unbounded cache hits what the trace could").isEqualTo(idealPages);
        assertThat(idealTokens).isGreaterThanOrEqualTo(idealPages);
    }

    @Test
    void aReplayMovingRealKvBytesMakesTheSameCacheDecisionsAsPlanningPagesOnly() {
        List<TraceRequest> trace = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            trace.add(new TraceRequest(i + 1, 0, 300 + 15 * i, 1, new long[] {i % 2}));
        }
        TraceReplay pagesOnly = new TraceReplay(2, 64, 16, 2);
        TraceReplay.KvBytes kv = new TraceReplay.KvBytes(
                SyntheticModel.builder().dims(new NsaDims(16, 512, 64, 128, 2048)).dtype(KvDtype.FP8_E4M3).layers(1).seed(3).build(), "java");
        TraceReplay withBytes = pagesOnly.withBytes(kv);
        for (boolean shared : new boolean[] {true, false}) {
            LayoutReport planned = pagesOnly.replay(trace, shared);
            LayoutReport real = withBytes.replay(trace, shared);
            assertThat(real.completed()).as("shared %s", shared).isEqualTo(trace.size());
            assertThat(real.deviceHitTokens()).as("shared %s: the prefix cache decides alike with bytes", shared).isEqualTo(planned.deviceHitTokens())
                    .isPositive();
            assertThat(real.recomputedTokens()).isEqualTo(planned.recomputedTokens());
            assertThat(real.peakPagesPerRank()).isEqualTo(planned.peakPagesPerRank());
        }
        assertThat(withBytes.pipeline(true).describe()).as("the flow writes the model's rows").contains("write");
        assertThat(pagesOnly.pipeline(true).describe()).doesNotContain("write");
        assertThatThrownBy(() -> new TraceReplay(2, 64, 16, 2, 100).withBytes(kv)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a host tier of 100 pages plans pages only: a replay with KV bytes has none");
    }

    @Test
    void afterARestartTheJournalServesWhatAColdStartRecomputes() {
        List<TraceRequest> trace = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // the second half repeats the first half's prompts
            trace.add(new TraceRequest(i + 1, 0, 900, 1, new long[] {i % 4, 50 + i % 4}));
        }
        TraceReplay.KvBytes kv = new TraceReplay.KvBytes(
                SyntheticModel.builder().dims(new NsaDims(16, 512, 64, 128, 2048)).dtype(KvDtype.FP8_E4M3).layers(1).seed(3).build(), "java");
        TraceReplay sizes = new TraceReplay(2, 64, 64, 2).withBytes(kv);
        for (boolean shared : new boolean[] {true, false}) {
            LayoutReport cold = sizes.restartAfter(4, null).replay(trace, shared);
            LayoutReport warm = sizes.restartAfter(4, dir.resolve("journal-" + shared)).replay(trace, shared);
            assertThat(cold.completed()).isEqualTo(8);
            assertThat(warm.completed()).isEqualTo(8);
            assertThat(cold.warmStartTokens()).isZero();
            assertThat(cold.deviceHitTokens()).as("a cold restart: the second half finds an empty cache").isZero();
            assertThat(warm.warmStartTokens()).as("shared %s: the first half's full pages, restored", shared).isEqualTo(4 * 896);
            assertThat(warm.deviceHitTokens()).as("the second half hits what the journal restored").isEqualTo(4 * 896);
            assertThat(warm.recomputedTokens()).isEqualTo(cold.recomputedTokens() - 4 * 896);
        }
        assertThatThrownBy(() -> new TraceReplay(2, 64, 64, 2).restartAfter(4, dir)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a journal holds KV bytes: a replay that journals needs a model (withBytes)");
        assertThatThrownBy(() -> sizes.restartAfter(0, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a restart after 0 requests (at least 1)");
    }

    @Test
    void atTheTracesPaceNothingIsDroppedAndEachRequestWaitsForItsArrival() {
        List<TraceRequest> trace = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            trace.add(new TraceRequest(i + 1, 25L * i, 700, 1, new long[] {i % 3, 100 + i}));
        }
        LayoutReport paced = new TraceReplay(2, 64, 64, 4).replay(trace, true, 10, null); // 975 ms of arrivals at ten times the pace
        assertThat(paced.completed() + paced.refused().values().stream().mapToLong(Long::longValue).sum()).as("a result for every request")
                .isEqualTo(trace.size());
        assertThat(paced.latency().count()).isEqualTo(trace.size());
        assertThat(paced.seconds()).as("the last request arrived no sooner than its timestamp allows").isGreaterThanOrEqualTo(0.0975);
        assertThat(paced.hitTokens()).as("later requests reuse the first block of earlier ones").isPositive();
        assertThatThrownBy(() -> new TraceReplay(2, 64, 0, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cp 2, page size 64, pages per rank 0 and batch 4 must all be >= 1");
        assertThatThrownBy(() -> new TraceReplay(2, 64, 64, 4).replay(trace, true, -1, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("speed -1.0 must be > 0 (the trace's pace times it) or 0 (as fast as possible)");
    }

    @Test
    void requestsBackpressureHeldPastTheirArrivalAreCountedQueuedAndTheirWaitIsInTheirLatency() {
        List<TraceRequest> trace = new ArrayList<>();
        for (int i = 0; i < 300; i++) { // all at once: more than the admission queue and the pools take
            trace.add(new TraceRequest(i + 1, 0, 700, 1, new long[] {1_000 + i, 2_000 + i}));
        }
        LayoutReport paced = new TraceReplay(2, 64, 64, 4).replay(trace, true, 1, null);
        assertThat(paced.completed()).isEqualTo(trace.size());
        assertThat(paced.queued()).as("requests the pipeline took later than they arrived").isGreaterThan(100);
        assertThat(paced.queueWait().count()).isEqualTo(trace.size());
        assertThat(paced.latency().max()).as("a request's latency runs from its arrival").isGreaterThanOrEqualTo(paced.queueWait().max());
        LayoutReport unpaced = new TraceReplay(2, 64, 64, 4).replay(trace, true, 0, null);
        assertThat(unpaced.queued()).isZero();
        assertThat(unpaced.queueWait().count()).isZero();
    }

    /** One point a served request, in trace time, with the hits and prompt tokens so far: its last point is the report's totals. */
    @Test
    void theTimelineFollowsTheServedRequestsAndEndsAtTheReportsTotals() {
        List<TraceRequest> trace = List.of(new TraceRequest(1, 1_000, 1_024, 1, new long[] {1, 2}), new TraceRequest(2, 3_000, 1_024, 1, new long[] {1, 2}),
                new TraceRequest(3, 4_500, 512, 1, new long[] {3}));
        LayoutReport report = new TraceReplay(2, 64, 64, 1).replay(trace, true); // batches of one: each request sees the cache its predecessor left
        List<TracePoint> timeline = report.timeline();
        assertThat(timeline).extracting(TracePoint::traceSeconds).containsExactly(0.0, 2.0, 3.5);
        assertThat(timeline).extracting(TracePoint::hitTokens).as("the repeat hits all but its last page").containsExactly(0L, 960L, 960L);
        assertThat(timeline).extracting(TracePoint::inputTokens).containsExactly(1_024L, 2_048L, 2_560L);
        // the cache keeps every page of A (16), then of B too (8 more), each page once over the two ranks
        assertThat(timeline).extracting(TracePoint::cachedPrefixTokens).containsExactly(1_024L, 1_024L, 1_536L);
        assertThat(timeline).extracting(TracePoint::pagesPerRank).containsExactly(8.0, 8.0, 12.0);
        assertThat(timeline.getLast().hitRatio()).isEqualTo(report.hitRatio()).isEqualTo(960.0 / 2_560);
        assertThat(report.hitTokens()).isEqualTo(960);
        assertThat(report.peakPagesPerRank()).as("the most a rank held: A's and B's pages").isEqualTo(12);
        assertThat(report.evictedPages()).isZero();
    }

    @Test
    void aReplaysSizesAreTakenAtOneAndRefusedBelow() {
        assertThat(new TraceReplay(1, 1, 1, 1).cp()).as("every size at its least").isEqualTo(1);
        assertThatThrownBy(() -> new TraceReplay(1, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cp 1, page size 1, pages per rank 1 and batch 0 must all be >= 1");
    }

    @Test
    void aHostTierServesWhatTheDeviceCacheHadToLetGo() {
        List<TraceRequest> trace = TraceFile.read(mooncake()).subList(0, 400);
        LayoutReport deviceOnly = new TraceReplay(2, 64, 1_600, 16, 0).replay(trace, true);
        LayoutReport withHost = new TraceReplay(2, 64, 1_600, 16, 20_000).replay(trace, true);
        assertThat(withHost.refused()).as("a pool that takes every request of the prefix").isEmpty();
        assertThat(deviceOnly.hostHitTokens()).isZero();
        assertThat(withHost.hostHitTokens()).as("tokens loaded from the host tier").isPositive();
        assertThat(deviceOnly.evictedPages()).as("the device cache had to let pages go").isPositive();
        assertThat(withHost.hitTokens()).isEqualTo(withHost.deviceHitTokens() + withHost.hostHitTokens());
        assertThat(withHost.recomputedTokens()).as("the host tier saves computing").isLessThan(deviceOnly.recomputedTokens());
        assertThat(withHost.deviceHitTokens() + withHost.hostHitTokens() + withHost.recomputedTokens()).isEqualTo(withHost.inputTokens());
        assertThatThrownBy(() -> new TraceReplay(2, 64, 256, 16, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("host tier pages -1 must be >= 0");
    }
}

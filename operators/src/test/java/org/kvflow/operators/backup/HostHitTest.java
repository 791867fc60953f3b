package org.kvflow.operators.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * A restarted process replays the journal into a host cache; admission counts the restored
 * prefixes as hits, the pipeline loads those pages instead of computing them, and decode gets the
 * same KV as a process that recomputed everything.
 */
class HostHitTest {
    private static final CpSharedKvConfig CONFIG = Workloads.sharedBsGt1(4, 16, 4, 128L);
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    @TempDir
    Path dir;

    private static Map<String, Long> run(KvGroup group, List<PrefillRequest> requests, Map<String, Integer> hits) {
        DecodeReceiver receiver = new DecodeReceiver(2048, 16, MODEL.layout());
        CpPrefillPipeline pipeline = CpPrefillPipeline.standard(group, new InMemoryTransferBackend(receiver), new QuerySampler(3, 5), 8);
        Map<String, Long> digests = new HashMap<>();
        Flux.fromIterable(requests).transform(pipeline).doOnNext(r -> {
            assertThat(r).isInstanceOf(PrefillResult.Completed.class);
            hits.put(r.request().id(), ((PrefillResult.Completed) r).prefixHitTokens());
            digests.put(r.request().id(), receiver.digest(r.request().id(), r.request().seqLen()));
        }).blockLast(Duration.ofMinutes(1));
        assertThat(group.leakCheck()).isEmpty();
        return digests;
    }

    @Test
    void replayedPrefixesAreLoadedNotRecomputedAndDecodeGetsTheSameKv() {
        List<PrefillRequest> first = Workloads.requests(31, 8, 150, 40);
        KvGroup writer = KvGroup.create(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(128, 16), MODEL, false);
        try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, new JournalLayout(16, MODEL.layout())))) {
            DecodeReceiver receiver = new DecodeReceiver(2048, 16, MODEL.layout());
            Workloads.withBackup(writer, new InMemoryTransferBackend(receiver), new HiCacheBackupOperator(writer, journal, WritePolicy.WRITE_THROUGH))
                    .apply(Flux.fromIterable(first)).blockLast(Duration.ofMinutes(1));
        }
        // "after a restart": continuations of the first prompts
        List<PrefillRequest> second = new ArrayList<>();
        for (PrefillRequest p : first) {
            int[] longer = Arrays.copyOf(p.tokenIds(), p.seqLen() + 40);
            Arrays.fill(longer, p.seqLen(), longer.length, 7);
            second.add(new PrefillRequest(p.id() + "+", longer, 4));
        }
        HostPageCache host = new HostPageCache(1L << 30);
        JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, host, (n, b) -> { });
        Map<String, Integer> loaded = new HashMap<>();
        Map<String, Long> withHost = run(KvGroup.create(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(128, 16), MODEL, false,
                new HostCacheSource(host)), second, loaded);
        Map<String, Integer> none = new HashMap<>();
        Map<String, Long> recomputed = run(KvGroup.create(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(128, 16), MODEL, false),
                second, none);
        assertThat(withHost).isEqualTo(recomputed);
        int fullPagesReused = 0;
        for (PrefillRequest p : first) {
            int expected = Math.min(p.seqLen() / 16, (p.seqLen() + 40 - 1) / 16) * 16;
            assertThat(loaded.get(p.id() + "+")).as("host hit of %s", p.id()).isEqualTo(expected);
            assertThat(none.get(p.id() + "+")).isZero();
            fullPagesReused += expected;
        }
        assertThat(fullPagesReused).isPositive();
    }
}

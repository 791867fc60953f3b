package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/**
 * A journal on a file system that fills: backups it refuses are counted ({@code kvflow.journal.refused})
 * and cost no request, what it holds replays whole, and a later run whose journal cannot open for
 * want of space is served too. Needs a small tmpfs, which only root can mount.
 */
class JournalFullFlowTest {
    private static final CpSharedKvConfig CONFIG = DslTest.CONFIG.toBuilder()
            .hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build()).build();

    @TempDir
    Path dir;

    @Test
    void backupsTheFullJournalRefusesAreCountedAndEveryRequestIsServed() throws Exception {
        Path small = Files.createDirectories(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", small.toString()).redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assumeTrue(mount.waitFor() == 0, "no tmpfs mount here (it needs root), so a full file system cannot be made: " + said);
        try {
            Path journal = small.resolve("journal");
            Random rnd = new Random(41);
            List<PrefillRequest> requests = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                requests.add(new PrefillRequest("full-" + i, rnd.ints(256, 0, 32_000).toArray(), 4));
            }
            DecodeReceiver receiver = new DecodeReceiver(1 << 14, CONFIG.pageSize(), DslTest.MODEL.layout());
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            PrefillPipeline pipeline = KvFlow.prefill(CONFIG).model(DslTest.MODEL).admit(Admission.batchGate().maxRequests(8)).split(Split.inSeq())
                    .own(Ownership.byPageId().pagesPerRank(1024)).write(Write.ownerRows()).materialize(Materialize.fullView())
                    .backup(HiCacheBackup.journal(journal)).transfer(PdTransfer.inMemory(receiver)).metrics(registry).build();

            List<PrefillResult> results = Flux.fromIterable(requests).transform(pipeline).collectList().block(Duration.ofMinutes(2));

            assertThat(results).hasSize(requests.size()).allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
            double refused = registry.get("kvflow.journal.refused").gauge().value();
            double journaled = registry.get("kvflow.journal.pages").gauge().value();
            assertThat(refused).as("requests whose backup the full journal refused").isPositive().isLessThan(requests.size());
            assertThat(journaled).as("pages the journal took before it filled").isPositive();
            ReplayReport replay = JournalReplayer.replay(journal, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP,
                    new HostPageCache(1L << 30), (record, bytes) -> { });
            assertThat(replay.rejected()).as("records replay refused").isEmpty();
            assertThat(replay.damage()).as("damaged cycle files").isEmpty();
            assertThat(replay.applied()).as("every journaled page replays").isEqualTo((long) journaled);

            // a later run on the full file system: its journal may not even open, and it serves all the same
            List<PrefillRequest> later = requests.stream().limit(20).map(r -> new PrefillRequest("later-" + r.id(), r.tokenIds(), 4)).toList();
            assertThat(Flux.fromIterable(later).transform(pipeline).collectList().block(Duration.ofMinutes(1))).hasSize(later.size())
                    .allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
            assertThat(registry.get("kvflow.journal.refused").gauge().value()).as("the later run's refusals: every request").isEqualTo(later.size());
            assertThat(registry.get("kvflow.journal.pages").gauge().value()).isZero();
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }
}

package org.kvflow.operators.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.backup.HiCacheBackupOperator;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.pages.CrossingMemory;
import org.kvflow.pages.HostTraffic;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.TransferBackend;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * Every page byte a run moves across the host is counted under the stage that moved it, also where
 * the stage's work runs on another thread (the transfer's backend): pools in a memory whose every
 * call crosses, so the attribution is checked without a GPU.
 */
class StageTrafficTest {
    private static final CpSharedKvConfig CONFIG = Workloads.sharedBsGt1(4, 16, 4, 64L);
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    @TempDir
    Path dir;

    @Test
    void everyByteIsAStagesAndTheTransferCountsExactlyThePagesItSent() {
        List<PrefillRequest> requests = Workloads.requests(5, 12, 120, 30);
        try (CrossingMemory memory = new CrossingMemory()) {
            KvGroup group = KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(64, 16)).model(MODEL).prefixCaching(true)
                    .memory(memory).build();
            DecodeReceiver receiver = new DecodeReceiver(1024, 16, MODEL.layout());
            try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, new JournalLayout(16, MODEL.layout())))) {
                CpPrefillPipeline pipeline = Workloads.withBackup(group, new InMemoryTransferBackend(receiver),
                        new HiCacheBackupOperator(group, journal, WritePolicy.WRITE_THROUGH));
                StepVerifier.create(Flux.fromIterable(requests).transform(pipeline))
                        .thenConsumeWhile(r -> r instanceof PrefillResult.Completed)
                        .verifyComplete();
            }
            Map<String, Long> byStage = memory.hostTraffic().byStage();
            assertThat(byStage).as("no byte outside a stage").doesNotContainKey(HostTraffic.UNATTRIBUTED)
                    .containsOnlyKeys(OwnerWriteOperator.STAGE, MaterializeOperator.STAGE, HiCacheBackupOperator.STAGE, TransferBackend.STAGE);
            long pageBytes = (long) MODEL.layout().shape().layers() * (MODEL.layout().mlaPageBytes(16) + MODEL.layout().indexPageBytes(16));
            long sent = requests.stream().mapToLong(r -> receiver.pages(r.id()).length).sum();
            assertThat(byStage.get(TransferBackend.STAGE)).as("each page read once, by its owner, for decode").isEqualTo(sent * pageBytes);
            assertThat(byStage.values()).allSatisfy(bytes -> assertThat(bytes).isPositive());
            group.close();
        }
    }
}

package org.kvflow.operators.stage;

import org.kvflow.operators.group.FaultyStage;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.backup.HiCacheBackupOperator;
import reactor.core.publisher.Flux;

/** The backup stage on its own (journal calls on boundedElastic); a page whose row is not one aligned group fails its request alone. */
class BackupStageTest extends StageScenarios {
    @TempDir
    Path dir;
    private HiCacheJournal journal;

    @BeforeEach
    void open() {
        journal = HiCacheJournal.open(JournalOptions.of(dir, new JournalLayout(4, MODEL.layout())));
    }

    @AfterEach
    void close() {
        journal.close();
    }

    @Override
    Function<Flux<PrefillBatch>, Flux<PrefillBatch>> stage() {
        return new HiCacheBackupOperator(group, journal, WritePolicy.WRITE_THROUGH);
    }

    @Override
    PrefillBatch input() {
        return Workloads.written(group, requests);
    }

    @Override
    PrefillBatch breakMiddle(PrefillBatch batch) {
        FaultyStage.corruptLoc(batch.entries().get(1).state(), 1, 1);
        return batch;
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        long loc1 = batch.entries().get(1).state().loc(1);
        assertThat(error).isInstanceOf(PageGroupValidationException.class)
                .hasMessageStartingWith("journal backup ")
                .hasMessageEndingWith(" pos 0: NON_CONTIGUOUS group 0 offset 1: " + loc1 + " breaks the run (expected first + 1)");
    }

    @Override
    long prefetch() {
        return 1;
    }
}

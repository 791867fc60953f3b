package org.kvflow.operators.backup;

import java.nio.file.Path;
import java.util.Objects;
import org.kvflow.journal.record.JournalRecord;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.JournalCorruptionException;
import org.kvflow.journal.replay.JournalReader;
import org.kvflow.journal.replay.ReplayStart;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * A journal as a {@code Flux<PageBackup>} (contract §11.4): the pages of its {@code BACKUP} records,
 * in journal order, read lazily on {@code boundedElastic} as demand arrives. A record the journal
 * refuses ends the stream with {@link JournalCorruptionException} naming its index. Cancelling
 * closes the journal files.
 */
public final class JournalReplaySource {
    private JournalReplaySource() {}

    /**
     * The pages of a journal's backups, from {@code start}.
     *
     * @param dir   the journal directory
     * @param start where to begin
     * @return the pages, read as demand arrives
     */
    public static Flux<PageBackup> backups(Path dir, ReplayStart start) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(start, "start");
        return Flux.using(() -> JournalReader.open(dir, start),
                        reader -> Flux.<PageBackup>generate(sink -> {
                            JournalReader.Item item;
                            while ((item = reader.next()) != null) {
                                if (item.refusal() != null) {
                                    sink.error(new JournalCorruptionException(item.index(), item.refusal()));
                                    return;
                                }
                                if (item.record() instanceof JournalRecord.Backup backup) {
                                    sink.next(backup.page());
                                    return;
                                }
                            }
                            sink.complete();
                        }),
                        JournalReader::close)
                .subscribeOn(Schedulers.boundedElastic())
                .name("kvflow.replay");
    }
}

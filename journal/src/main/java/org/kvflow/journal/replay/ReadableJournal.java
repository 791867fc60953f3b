package org.kvflow.journal.replay;

import org.kvflow.journal.HiCacheJournal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import net.openhft.chronicle.queue.RollCycle;
import org.jspecify.annotations.Nullable;
import org.kvflow.journal.JournalIoException;

/**
 * A journal as replay may read it. When every cycle file is intact, that is the directory itself.
 * When one is damaged (truncated by a power loss or a full disk, a header overwritten, emptied),
 * it is a temporary directory beside which Chronicle never sees the damage: intact cycle files are
 * linked in, a damaged one is copied up to its last intact record and zero-padded past where its
 * damaged record claimed to end, and an empty one is left out. The journal itself is never written.
 * Close it to remove the temporary directory.
 */
final class ReadableJournal implements AutoCloseable {
    static final String METADATA = "metadata.cq4t";
    /** Chronicle's header word for "no more documents in this cycle": not complete, metadata, length 0. */
    private static final int END_OF_DATA = CycleScan.NOT_COMPLETE | CycleScan.META_DATA;

    private final Path dir;
    private final @Nullable Path temporary;
    private final List<CycleScan> damaged;
    private final boolean writable;

    private ReadableJournal(Path dir, @Nullable Path temporary, List<CycleScan> damaged, boolean writable) {
        this.dir = dir;
        this.temporary = temporary;
        this.damaged = List.copyOf(damaged);
        this.writable = writable;
    }

    /**
     * @throws JournalIoException if the directory cannot be read, or its {@code metadata.cq4t} is not a Chronicle table store
     */
    static ReadableJournal of(Path journal) {
        try {
            checkMetadata(journal.resolve(METADATA));
            List<CycleScan> scans = new ArrayList<>();
            for (Path f : HiCacheJournal.cycleFiles(journal)) {
                scans.add(CycleScan.of(f));
            }
            List<CycleScan> damaged = scans.stream().filter(s -> s.damage() != null).toList();
            if (damaged.isEmpty()) {
                return new ReadableJournal(journal, null, List.of(), false);
            }
            Path copy = ReplayCopies.create(Path.of(System.getProperty("java.io.tmpdir")));
            // a cycle left out (nothing intact in it): the table store names it still, so Chronicle must rebuild its own listing,
            // which only a writable queue does; a writable queue may mark cycles' ends, so the intact files are copied, not linked
            boolean leftOut = damaged.stream().anyMatch(s -> s.intactEnd() == 0);
            if (!leftOut) {
                Files.copy(journal.resolve(METADATA), copy.resolve(METADATA));
            }
            for (CycleScan s : scans) {
                Path target = copy.resolve(s.file().getFileName());
                if (s.damage() == null) {
                    if (leftOut) {
                        Files.copy(s.file(), target);
                    } else {
                        link(s.file(), target);
                    }
                } else if (s.intactEnd() > 0) {
                    copyIntact(s, target);
                }
            }
            return new ReadableJournal(copy, copy, damaged, leftOut);
        } catch (IOException e) {
            throw new JournalIoException("cannot read the journal at " + journal + ": " + e.getMessage(), e);
        }
    }

    /** The directory to open with Chronicle. */
    Path dir() {
        return dir;
    }

    /** Whether Chronicle must open it writable (a copy of ours, never the journal). */
    boolean writable() {
        return writable;
    }

    /** The damaged cycle files, each with the index of its first unreadable record in {@code rollCycle}'s numbering. */
    List<JournalDamage> damage(RollCycle rollCycle) {
        return damaged.stream().map(s -> new JournalDamage(s.file().getFileName().toString(),
                rollCycle.toIndex(cycleOf(s.file().getFileName().toString(), rollCycle), s.records()), s.bytesLost(),
                s.damage())).toList();
    }

    /** The cycle a cycle file's name stands for (its name is the cycle's start time in the roll cycle's format, UTC). */
    static int cycleOf(String fileName, RollCycle rollCycle) {
        DateTimeFormatter format = new DateTimeFormatterBuilder().appendPattern(rollCycle.format())
                .parseDefaulting(ChronoField.HOUR_OF_DAY, 0).parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0)
                .parseDefaulting(ChronoField.SECOND_OF_MINUTE, 0).toFormatter(Locale.ROOT);
        long millis = LocalDateTime.parse(fileName.substring(0, fileName.length() - ".cq4".length()), format)
                .toInstant(ZoneOffset.UTC).toEpochMilli();
        return Math.toIntExact(millis / rollCycle.lengthInMillis());
    }

    private static void checkMetadata(Path metadata) throws IOException {
        if (!Files.exists(metadata)) {
            return; // Chronicle says what is missing
        }
        try (FileChannel ch = FileChannel.open(metadata, StandardOpenOption.READ)) {
            LiveWriterGrace.await(() -> {
                int h = firstWord(ch);
                return h != 0 && (h & CycleScan.NOT_COMPLETE) == 0; // a header written and complete
            });
            int header = firstWord(ch);
            boolean sane = (header & CycleScan.META_DATA) != 0 && (header & CycleScan.NOT_COMPLETE) == 0
                    && 4L + (header & CycleScan.LENGTH) <= ch.size();
            if (!sane) {
                throw new JournalIoException(metadata + " is damaged: it does not start with a Chronicle table-store header ("
                        + ch.size() + " bytes, first word 0x" + Integer.toHexString(header) + "); replay cannot read the cycles without it");
            }
        }
    }

    private static int firstWord(FileChannel ch) throws IOException {
        return CycleScan.headerAt(ch, ByteBuffer.allocate(4), 0);
    }

    private static void link(Path file, Path target) throws IOException {
        try {
            Files.createLink(target, file);
        } catch (IOException | UnsupportedOperationException e) { // another file system, or no hard links: copy
            Files.copy(file, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
    }

    private static void copyIntact(CycleScan s, Path target) throws IOException {
        try (FileChannel in = FileChannel.open(s.file(), StandardOpenOption.READ);
             FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long done = 0; done < s.intactEnd(); ) {
                done += in.transferTo(done, s.intactEnd() - done, out);
            }
            // Chronicle's end-of-data mark where the intact records end, so a reader rolls on to the next cycle; then sparse zeros up
            // to past where the damaged record claimed to end, so no read of Chronicle's falls past the end of the file
            out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, END_OF_DATA), s.intactEnd());
            out.write(ByteBuffer.wrap(new byte[] {0}), Math.max(s.size(), s.declaredEnd()) + 4096);
        }
    }

    @Override
    public void close() {
        if (temporary == null) {
            return;
        }
        try (Stream<Path> files = Files.list(temporary)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(temporary);
        } catch (IOException e) {
            throw new JournalIoException("cannot remove the replay copy at " + temporary + ": " + e.getMessage(), e);
        }
    }
}

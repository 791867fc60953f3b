package org.kvflow.journal.replay;

import org.kvflow.journal.HiCacheJournal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.journal.JournalIoException;

/**
 * Reads a journal's cycle files in order, on a thread of its own, so that their pages are in the
 * page cache before the readers that follow fault them in through the mapping: a sequential read
 * gets the kernel's full read-ahead, faults on a mapping get much less, so a restore from a cold
 * cache runs at the disk's sequential pace. It never runs more than {@code window} bytes ahead of
 * the readers' progress (bytes from the start of the first file), so a journal larger than memory
 * does not push out what the readers still need. The bytes it reads are dropped; it changes nothing.
 */
public final class JournalReadAhead implements AutoCloseable {
    private static final int CHUNK = 8 << 20;

    private final List<Path> files;
    private final long window;
    private final LongSupplier progress;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(CHUNK);
    private volatile long position;
    private volatile boolean stopped;
    private volatile boolean done;
    private int file;
    private long offsetInFile;
    /** The file being read, open across steps so the kernel keeps its read-ahead state. */
    private @Nullable FileChannel channel;
    private final Thread thread;

    JournalReadAhead(Path dir, long window, LongSupplier progress) {
        if (window < CHUNK) {
            throw new IllegalArgumentException("a read-ahead window of " + window + " bytes is smaller than one read of " + CHUNK);
        }
        this.window = window;
        this.progress = Objects.requireNonNull(progress, "progress");
        this.files = HiCacheJournal.cycleFiles(dir);
        this.thread = Thread.ofPlatform().daemon().name("kvflow-journal-read-ahead").unstarted(this::run);
    }

    /**
     * Starts reading {@code dir}'s cycle files ahead of the readers.
     *
     * @param dir      the journal directory
     * @param window   the most bytes it reads past {@code progress}
     * @param progress how far the slowest reader has got, in bytes from the start of the first file
     * @return the running read-ahead; close it when the readers are done
     * @throws JournalIoException if the directory cannot be listed
     */
    public static JournalReadAhead start(Path dir, long window, LongSupplier progress) {
        JournalReadAhead ahead = new JournalReadAhead(dir, window, progress);
        ahead.thread.start();
        return ahead;
    }

    /**
     * Bytes read so far.
     *
     * @return bytes from the start of the first file
     */
    public long position() {
        return position;
    }

    /**
     * Whether every file has been read (or reading stopped at an error): nothing more will come.
     *
     * @return whether it is done
     */
    public boolean done() {
        return done;
    }

    /**
     * Waits until the read-ahead has read past {@code offset} bytes (or is done), so a reader that
     * follows never faults in pages the sequential read has not reached.
     *
     * @param offset bytes from the start of the first file
     */
    public void awaitPast(long offset) {
        while (position < offset && !done && !stopped) {
            LockSupport.parkNanos(50_000);
        }
    }

    private void run() {
        while (!stopped) {
            Step step = step();
            if (step == Step.DONE) {
                return;
            }
            if (step == Step.WAIT) {
                LockSupport.parkNanos(200_000);
            }
        }
    }

    /** What one {@link #step()} did. */
    enum Step { READ, WAIT, DONE }

    /** Reads the next chunk, unless it would run past the window or every file is read. */
    Step step() {
        if (file >= files.size()) {
            done = true;
            return Step.DONE;
        }
        if (position + CHUNK > progress.getAsLong() + window) {
            return Step.WAIT;
        }
        try {
            if (channel == null) {
                channel = FileChannel.open(files.get(file), StandardOpenOption.READ);
            }
            int n = channel.read(scratch.clear(), offsetInFile);
            if (n < 0) {
                closeChannel();
                file++;
                offsetInFile = 0;
            } else {
                offsetInFile += n;
                position += n;
            }
        } catch (IOException e) {
            closeChannel();
            file = files.size(); // the readers meet the same file and report it; read-ahead only helps
        }
        return Step.READ;
    }

    private void closeChannel() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing was written; a failed close loses nothing
            }
            channel = null;
        }
    }

    /** Stops the thread, waits for it and closes the file it was reading. */
    @Override
    public void close() {
        stopped = true;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeChannel();
    }
}

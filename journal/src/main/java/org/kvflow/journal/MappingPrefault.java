package org.kvflow.journal;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.MappedBytes;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * Faults in the appender's memory map ahead of it, on a thread of its own. Chronicle writes each
 * record through a shared map of the cycle file, one mapped chunk (a block plus an overlap) at a
 * time, and the first write to each page of a chunk takes a page fault on the appending thread (the
 * kernel allocates, zeroes and maps the page), where a {@code write} into the page cache takes
 * none. After each record, the next {@link #AHEAD} bytes are faulted in writable by one worker
 * ({@code madvise(MADV_POPULATE_WRITE)}, Linux 5.14 and later), piece after piece: one thread
 * faults a file's pages in faster than several at once, which contend in the kernel. That is done
 * in the chunk the appender writes to and, near its end, in the next chunk, which is mapped here
 * through Chronicle's own file (so the appender, reaching it, is handed the same, already
 * faulted-in map) and held until the appender has it. Nothing is read or written: what the file
 * holds is never changed, and a chunk is reserved while the worker works on it, so Chronicle cannot
 * unmap it underneath. Where the kernel or the C library does not offer the call, it stops asking
 * ({@link #active()}) and the appender faults its pages in itself, as with Chronicle alone.
 */
final class MappingPrefault implements AutoCloseable, ReferenceOwner {
    /** How far ahead of the last record's end the map is faulted in. */
    static final long AHEAD = 32L << 20;
    /** Asked for again once the appender has used this much of what was faulted in. */
    private static final long STEP = AHEAD / 4;
    private static final long PAGE = 4096;
    private static final int MADV_POPULATE_WRITE = 23;
    private static final MethodHandle MADVISE = bindMadvise();

    /** A range is faulted in as pieces of this size, each holding its chunk only while it runs. */
    private static final long PIECE = 4L << 20;

    /**
     * One thread: one thread faulted a file's pages in faster than two to eight side by side
     * (docs/benchmarks.md, sixth round; D29).
     */
    private final ExecutorService worker = Executors.newSingleThreadExecutor(
            task -> Thread.ofPlatform().daemon().name("kvflow-journal-prefault").unstarted(task));
    /** The chunk the appender wrote to last and how far it is asked for; confined to the appending thread (the journal's lock), as are the next three. */
    private MappedBytesStore written;
    private long currentDone;
    /** The next chunk, mapped and held for the appender until it writes there, its file, and how far it is asked for. */
    private MappedBytesStore held;
    private MappedFile heldFile;
    private long heldDone;
    /** Cleared when the kernel refuses the call (an older kernel): written by the worker, read by the appender. */
    private volatile boolean kernelAccepts = true;

    private static MethodHandle bindMadvise() {
        try {
            Linker linker = Linker.nativeLinker();
            return linker.downcallHandle(linker.defaultLookup().find("madvise").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        } catch (RuntimeException | LinkageError e) {
            return null; // no C library call here: the appender faults its pages in itself
        }
    }

    /** Whether maps are faulted in ahead at all: the call is bound and the kernel has not refused it. */
    boolean active() {
        return MADVISE != null && kernelAccepts;
    }

    /**
     * The appender has written {@code bytes} up to its write position: once less than
     * {@code AHEAD - STEP} bytes ahead of it are faulted in, the bytes up to {@link #AHEAD} past its
     * position are, by the worker: through the chunk it writes to and, past that chunk's end,
     * through the next chunk, which is mapped here and held until the appender has it. Each chunk
     * is a map of its own, so what is faulted in is tracked per chunk.
     *
     * @param bytes the appender's bytes, just after a record was written
     */
    void wrote(Bytes<?> bytes) {
        if (!active() || !(bytes instanceof MappedBytes mapped) || !(bytes.bytesStore() instanceof MappedBytesStore current)) {
            return;
        }
        MappedFile file = mapped.mappedFile();
        long position = bytes.writePosition();
        if (current != written) { // a chunk (or a file) the appender has just moved to
            currentDone = current == held ? heldDone : position;
            written = current;
        }
        if (held != null && (heldFile != file || held.start() <= current.start())) {
            releaseHeld(); // the appender has that chunk now (or writes another file)
        }
        long frontier = held != null ? heldDone : Math.min(currentDone, current.safeLimit());
        if (frontier - position > AHEAD - STEP) {
            return;
        }
        long end = position + AHEAD;
        currentDone = populate(current, Math.max(position, currentDone), Math.min(end, current.realCapacity()));
        if (end > current.safeLimit()) {
            try {
                if (held == null) {
                    held = file.acquireByteStore(this, current.safeLimit());
                    heldFile = file;
                    heldDone = held.start();
                }
                heldDone = populate(held, heldDone, Math.min(end, held.realCapacity()));
            } catch (IOException | RuntimeException e) {
                releaseHeld(); // the file was closed or rolled: the appender maps its chunks itself
            }
        }
    }

    /**
     * Hands [from, end) (file offsets) of one mapped chunk to the worker in pieces, each holding
     * the chunk while it runs; returns how far the chunk is asked for now.
     */
    private long populate(MappedBytesStore chunk, long from, long end) {
        for (long at = from; at < end; at += PIECE) {
            long pieceEnd = Math.min(end, at + PIECE);
            long pieceFrom = at;
            ReferenceOwner task = ReferenceOwner.temporary("kvflow-journal-prefault");
            if (!chunk.tryReserve(task)) {
                return at; // released underneath: the appender maps it again itself
            }
            worker.execute(() -> {
                try {
                    fault(chunk, pieceFrom, pieceEnd);
                } finally {
                    chunk.release(task);
                }
            });
        }
        return Math.max(from, end);
    }

    /** On the worker: the whole pages of [from, end) (file offsets) of one mapped chunk. */
    private void fault(MappedBytesStore chunk, long from, long end) {
        if (end - from < PAGE) {
            return;
        }
        long address = chunk.addressForWrite(chunk.start()) + (from - chunk.start());
        long first = (address + PAGE - 1) & -PAGE;
        long last = (address + end - from) & -PAGE;
        try {
            if (last > first && (int) MADVISE.invokeExact(first, last - first, MADV_POPULATE_WRITE) != 0) {
                kernelAccepts = false; // EINVAL before Linux 5.14: the appender faults its pages in itself
            }
        } catch (Throwable e) {
            kernelAccepts = false;
        }
    }

    private void releaseHeld() {
        if (held != null) {
            held.release(this);
            held = null;
            heldFile = null;
        }
    }

    /** Finishes what was asked for, stops the worker and gives back the chunk held ahead. */
    @Override
    public void close() {
        worker.shutdown();
        try {
            worker.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        releaseHeld();
    }
}

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
 * none. After each record, a worker asks the kernel to fault in the next {@link #AHEAD} bytes
 * writable ({@code madvise(MADV_POPULATE_WRITE)}, Linux 5.14 and later): in the chunk the appender
 * writes to and, near its end, in the next chunk, which the worker maps through Chronicle's own
 * file (so the appender, reaching it, is handed the same, already faulted-in map) and holds until
 * the appender has it. Nothing is read or written: what the file holds is never changed, and every
 * chunk is reserved while the worker works on it, so Chronicle cannot unmap it underneath. Where
 * the kernel or the C library does not offer the call, it stops asking ({@link #active()}) and the
 * appender faults its pages in itself, as with Chronicle alone.
 */
final class MappingPrefault implements AutoCloseable, ReferenceOwner {
    /** How far ahead of the last record's end the map is faulted in. */
    static final long AHEAD = 32L << 20;
    /** Asked for again once the appender has used this much of what was faulted in. */
    private static final long STEP = AHEAD / 4;
    private static final long PAGE = 4096;
    private static final int MADV_POPULATE_WRITE = 23;
    private static final MethodHandle MADVISE = bindMadvise();

    private final ExecutorService worker = Executors.newSingleThreadExecutor(
            task -> Thread.ofPlatform().daemon().name("kvflow-journal-prefault").unstarted(task));
    /** The file and the end of the range last asked for; confined to the appending thread (the journal's lock). */
    private MappedFile askedFile;
    private long askedEnd;
    /** The next chunk, mapped and held for the appender; confined to the worker. */
    private MappedBytesStore held;
    private MappedFile heldFile;
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
     * The appender has written {@code bytes} up to its write position: once it is past a quarter of
     * the range asked for (or in a file not asked for yet), the bytes up to {@link #AHEAD} past
     * its position are faulted in, on the worker.
     *
     * @param bytes the appender's bytes, just after a record was written
     */
    void wrote(Bytes<?> bytes) {
        if (!active() || !(bytes instanceof MappedBytes mapped) || !(bytes.bytesStore() instanceof MappedBytesStore store)) {
            return;
        }
        MappedFile file = mapped.mappedFile();
        long position = bytes.writePosition();
        if (file == askedFile && position + AHEAD - STEP < askedEnd) {
            return;
        }
        long from = file == askedFile ? Math.max(position, askedEnd) : position;
        long end = position + AHEAD;
        askedFile = file;
        askedEnd = end;
        ReferenceOwner task = ReferenceOwner.temporary("kvflow-journal-prefault");
        if (!store.tryReserve(task)) {
            return;
        }
        worker.execute(() -> populate(file, store, task, from, end));
    }

    /**
     * On the worker: [from, end) of the file, the part below the next chunk through the appender's
     * chunk, the rest through the next chunk's map, which is held until the appender writes in it.
     */
    private void populate(MappedFile file, MappedBytesStore current, ReferenceOwner task, long from, long end) {
        try {
            long nextStart = current.safeLimit();
            if (held != null && (heldFile != file || held.start() <= current.start())) {
                release(); // the appender has that chunk now (or writes another file)
            }
            populate(current, from, Math.min(end, current.realCapacity()));
            if (end > nextStart) {
                if (held == null) {
                    held = file.acquireByteStore(this, nextStart);
                    heldFile = file;
                }
                populate(held, Math.max(from, held.start()), Math.min(end, held.realCapacity()));
            }
        } catch (IOException | RuntimeException e) {
            release(); // the file was closed or rolled: the appender maps its chunks itself
        } finally {
            current.release(task);
        }
    }

    /** The whole pages of [from, end) (file offsets) of one mapped chunk. */
    private void populate(MappedBytesStore chunk, long from, long end) {
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

    private void release() {
        if (held != null) {
            held.release(this);
            held = null;
            heldFile = null;
        }
    }

    /** Finishes what was asked for, gives back the chunk held ahead and stops the worker. */
    @Override
    public void close() {
        worker.execute(this::release);
        worker.shutdown();
        try {
            worker.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package org.kvflow.journal;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the page cache filled ahead of the appender. Chronicle writes records through a shared
 * memory map of the cycle file, so the first touch of each page of the file allocates and zeroes
 * it on the appending thread, in bursts as the kernel reads ahead (a 2.5 MB record: some 600 such
 * pages). A worker thread asks the kernel for the next {@link #AHEAD} bytes of the file
 * ({@code posix_fadvise(WILLNEED)}), so those pages are in the cache by the time the appender
 * writes them. It reads nothing and writes nothing: what the file holds is never touched. Where
 * the C library's calls cannot be bound (not Linux), it does nothing ({@link #active()}).
 */
final class PageCacheAhead implements AutoCloseable {
    /** How far ahead of the last record the cache is filled. */
    static final long AHEAD = 64L << 20;
    private static final int O_RDONLY = 0;
    private static final int POSIX_FADV_WILLNEED = 3;
    private static final MethodHandle OPEN;
    private static final MethodHandle FADVISE;
    private static final MethodHandle CLOSE;

    static {
        MethodHandle open = null;
        MethodHandle fadvise = null;
        MethodHandle close = null;
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            open = linker.downcallHandle(libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                    Linker.Option.firstVariadicArg(2));
            fadvise = linker.downcallHandle(libc.find("posix_fadvise").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            close = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        } catch (RuntimeException | LinkageError e) {
            open = null; // no C library calls here: the appender faults its pages in itself, as before
        }
        OPEN = open;
        FADVISE = fadvise;
        CLOSE = close;
    }

    private final ExecutorService worker = Executors.newSingleThreadExecutor(task -> Thread.ofPlatform().daemon().name("kvflow-journal-ahead").unstarted(task));
    /** The file and the end of the range last asked for; guarded by the journal's lock. */
    private File advisedFile;
    private long advisedEnd;
    /** The worker's open descriptor and its file; confined to the worker. */
    private File openFile;
    private int fd = -1;

    /** Whether the kernel is asked at all (the C library's calls were bound). */
    boolean active() {
        return OPEN != null;
    }

    /**
     * The appender wrote {@code file} up to byte {@code position}: once it is past half of the
     * range asked for, the next {@link #AHEAD} bytes are asked for, on the worker.
     */
    void wrote(File file, long position) {
        if (!active() || (file.equals(advisedFile) && position + AHEAD / 2 < advisedEnd)) {
            return;
        }
        advisedFile = file;
        advisedEnd = position + AHEAD;
        worker.execute(() -> advise(file, position));
    }

    /** On the worker: one descriptor, of the current cycle file (an older one is closed, so a deleted cycle frees its space). */
    private void advise(File file, long from) {
        try {
            if (!file.equals(openFile)) {
                closeFd();
                try (Arena arena = Arena.ofConfined()) {
                    fd = (int) OPEN.invokeExact(arena.allocateFrom(file.getPath()), O_RDONLY, 0);
                }
                openFile = fd >= 0 ? file : null;
            }
            if (fd >= 0) {
                int ignored = (int) FADVISE.invokeExact(fd, from, AHEAD, POSIX_FADV_WILLNEED); // advice: a refusal changes nothing
            }
        } catch (Throwable e) {
            closeFd(); // the appender faults its pages in itself, as without this
        }
    }

    private void closeFd() {
        if (fd >= 0) {
            try {
                int ignored = (int) CLOSE.invokeExact(fd);
            } catch (Throwable e) {
                // the descriptor is gone either way
            }
        }
        fd = -1;
        openFile = null;
    }

    /** Stops the worker and closes its descriptor. */
    @Override
    public void close() {
        worker.execute(this::closeFd);
        worker.shutdown();
        try {
            worker.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

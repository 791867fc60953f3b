package org.kvflow.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import net.openhft.chronicle.bytes.MappedBytes;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The map is faulted in ahead of the appender: pages of a fresh file that nothing wrote are in the
 * page cache after {@link MappingPrefault#wrote}, up to the end of the next chunk, they still read
 * as zeros, and once closed it holds no chunk (no map of the file is left). Residency is read with
 * {@code mincore} through a map of our own.
 */
class MappingPrefaultTest {
    private static final int PAGE = 4096;
    private static final long CHUNK = 1 << 20;
    private static final long OVERLAP = 256 << 10;

    @TempDir
    Path dir;

    @Test
    void pagesAheadOfTheAppenderAndInTheNextChunkAreFaultedInStayZeroAndAreLetGoAtClose() throws Throwable {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "madvise(MADV_POPULATE_WRITE) and mincore are Linux calls");
        File file = dir.resolve("cycle.cq4").toFile();
        int written = 100 << 10;
        MappedBytes bytes = MappedBytes.mappedBytes(file, CHUNK, OVERLAP);
        try {
            bytes.write(new byte[written]);
            MappingPrefault prefault = new MappingPrefault();
            assumeTrue(prefault.active(), "the C library's madvise could not be bound");
            prefault.wrote(bytes);
            prefault.close(); // waits for the workers
            assumeTrue(prefault.active(), "the kernel refused madvise(MADV_POPULATE_WRITE) (Linux before 5.14)");
        } finally {
            bytes.releaseLast();
        }
        assertEquals(0, mapsOf(file), "maps of the file left after close: a chunk is still held");
        long nextChunkEnd = CHUNK + CHUNK + OVERLAP; // the next chunk's map: a chunk and its overlap
        boolean[] resident = resident(file.toPath(), nextChunkEnd);
        int firstAhead = (written + PAGE - 1) / PAGE;
        int missing = 0;
        for (int page = firstAhead; page < resident.length; page++) {
            missing += resident[page] ? 0 : 1;
        }
        assertEquals(0, missing, "pages from " + firstAhead + " to " + resident.length + " not faulted in");
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            var tail = ch.map(FileChannel.MapMode.READ_ONLY, written, nextChunkEnd - written);
            while (tail.hasRemaining()) {
                assertEquals(0, tail.get(), "a faulted-in page changed what the file holds");
            }
        }
    }

    /** This process's maps of {@code file} (Linux's {@code /proc/self/maps}), once Chronicle's background releases are done. */
    private static long mapsOf(File file) throws Exception {
        long maps = 0;
        for (int i = 0; i < 50; i++) {
            BackgroundResourceReleaser.releasePendingResources();
            try (var lines = java.nio.file.Files.lines(Path.of("/proc/self/maps"))) {
                maps = lines.filter(line -> line.endsWith(file.getPath())).count();
            }
            if (maps == 0) {
                break;
            }
            Thread.sleep(100);
        }
        return maps;
    }

    /** Page-cache residency of the file's first {@code length} bytes, one flag per 4 KiB page. */
    private static boolean[] resident(Path file, long length) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle mincore = linker.downcallHandle(linker.defaultLookup().find("mincore").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, length, arena);
            int pages = (int) (length / PAGE);
            MemorySegment flags = arena.allocate(pages);
            assertEquals(0, (int) mincore.invokeExact(map.address(), length, flags));
            boolean[] out = new boolean[pages];
            for (int i = 0; i < pages; i++) {
                out[i] = (flags.get(ValueLayout.JAVA_BYTE, i) & 1) != 0;
            }
            return out;
        }
    }
}

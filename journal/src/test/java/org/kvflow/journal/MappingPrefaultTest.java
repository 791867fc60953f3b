package org.kvflow.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
        assumeTrue(kernelPopulatesWrite(), "this kernel (or C library) has no madvise(MADV_POPULATE_WRITE): Linux 5.14 and later");
        File file = dir.resolve("cycle.cq4").toFile();
        int written = 100 << 10;
        MappedBytes bytes = MappedBytes.mappedBytes(file, CHUNK, OVERLAP);
        try {
            bytes.write(new byte[written]);
            MappingPrefault prefault = new MappingPrefault();
            prefault.wrote(bytes);
            prefault.close(); // waits for the worker
            assertTrue(prefault.active(), "the kernel refused a range the prefault asked for");
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

    @Test
    void asTheAppenderCrossesChunksEachNextChunkIsFaultedInAndWhatWasWrittenStays() throws Throwable {
        assumeTrue(kernelPopulatesWrite(), "this kernel (or C library) has no madvise(MADV_POPULATE_WRITE): Linux 5.14 and later");
        File file = dir.resolve("chunks.cq4").toFile();
        byte[] record = new byte[100 << 10];
        java.util.Arrays.fill(record, (byte) 7);
        int records = 40; // 4,000 KiB: through chunks 0 to 3
        MappedBytes bytes = MappedBytes.mappedBytes(file, CHUNK, OVERLAP);
        long end;
        try {
            MappingPrefault prefault = new MappingPrefault();
            for (int r = 0; r < records; r++) {
                bytes.write(record);
                prefault.wrote(bytes);
            }
            end = bytes.writePosition();
            prefault.close();
            assertTrue(prefault.active(), "the kernel refused a range the prefault asked for");
        } finally {
            bytes.releaseLast();
        }
        assertEquals(0, mapsOf(file), "maps of the file left after close: a chunk is still held");
        long chunk = end / CHUNK;
        long nextChunkEnd = (chunk + 1) * CHUNK + CHUNK + OVERLAP;
        boolean[] resident = resident(file.toPath(), nextChunkEnd);
        int missing = 0;
        for (boolean page : resident) {
            missing += page ? 0 : 1;
        }
        assertEquals(0, missing, "pages up to the end of chunk " + (chunk + 1) + " not faulted in");
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            var all = ch.map(FileChannel.MapMode.READ_ONLY, 0, nextChunkEnd);
            for (long at = 0; at < nextChunkEnd; at++) {
                assertEquals(at < end ? 7 : 0, all.get((int) at), "byte " + at);
            }
        }
    }

    /** Whether this kernel faults in a map of our own for {@code madvise(MADV_POPULATE_WRITE)}, asked directly. */
    private boolean kernelPopulatesWrite() throws Throwable {
        if (!System.getProperty("os.name").startsWith("Linux")) {
            return false;
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle madvise = linker.downcallHandle(linker.defaultLookup().find("madvise").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        Path probe = dir.resolve("probe.bin");
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ch.truncate(PAGE);
            MemorySegment map = ch.map(FileChannel.MapMode.READ_WRITE, 0, PAGE, arena);
            return (int) madvise.invokeExact(map.address(), (long) PAGE, 23) == 0; // 23: MADV_POPULATE_WRITE
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

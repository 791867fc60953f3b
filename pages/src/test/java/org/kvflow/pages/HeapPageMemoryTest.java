package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.validate.PageGroupValidationException;

class HeapPageMemoryTest {
    private final HeapPageMemory memory = new HeapPageMemory();

    private PageBuffer filled(String label, int pages, int pageBytes) {
        PageBuffer b = memory.allocate(label, pages, pageBytes);
        byte[] content = new byte[pages * pageBytes];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i / pageBytes + 1);
        }
        memory.write(b, 0, content, 0, content.length);
        return b;
    }

    private byte[] all(PageBuffer b) {
        byte[] out = new byte[(int) b.bytes()];
        memory.read(b, 0, out.length, out, 0);
        return out;
    }

    @Test
    void gatherThenScatterRestoresPages() {
        PageBuffer pool = filled("pool", 6, 2);
        PageBuffer view = memory.allocate("view", 3, 2);
        PageCopies.gather(memory, pool, new long[] {5, 1, 3}, view);
        assertThat(all(view)).containsExactly(6, 6, 2, 2, 4, 4);
        PageBuffer other = memory.allocate("other", 6, 2);
        PageCopies.scatter(memory, view, other, new long[] {0, 2, 4});
        assertThat(all(other)).containsExactly(6, 6, 0, 0, 2, 2, 0, 0, 4, 4, 0, 0);
    }

    @Test
    void tokenIndexedCopyValidatesBothSidesBeforeCopying() {
        PageBuffer device = filled("device", 4, 3);
        PageBuffer host = memory.allocate("host", 4, 3);
        PageCopies.copyTokens(memory, device, new long[] {6, 7, 8, 0, 1, 2}, host, new long[] {0, 1, 2, 9, 10, 11}, 3, "backup");
        assertThat(all(host)).containsExactly(3, 3, 3, 0, 0, 0, 0, 0, 0, 1, 1, 1);
        PageBuffer untouched = memory.allocate("untouched", 4, 3);
        assertThatThrownBy(() -> PageCopies.copyTokens(memory, device, new long[] {6, 7, 8}, untouched, new long[] {3, 5, 4}, 3, "load req 9"))
                .isInstanceOf(PageGroupValidationException.class)
                .hasMessage("load req 9 (destination): NON_CONTIGUOUS group 0 offset 1: 5 breaks the run (expected first + 1)");
        assertThatThrownBy(() -> PageCopies.copyTokens(memory, device, new long[] {6, 7}, untouched, new long[] {3, 4}, 3, "load"))
                .isInstanceOf(PageGroupValidationException.class).hasMessageContaining("PARTIAL");
        assertThat(all(untouched)).containsOnly(0);
    }

    @Test
    void aBatchOfCopiesIsCheckedWholeBeforeAnyCopy() {
        PageBuffer mla = filled("mla", 4, 4);
        PageBuffer index = filled("index", 2, 2);
        PageBuffer mlaView = memory.allocate("mla view", 2, 4);
        PageBuffer indexView = memory.allocate("index view", 2, 2);
        assertThatThrownBy(() -> memory.copyPages(List.of(new PageCopy(mla, new long[] {3}, mlaView, new long[] {0}),
                new PageCopy(index, new long[] {3}, indexView, new long[] {0}))))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("index: entry 0 names page 3, outside [0, 2)");
        assertThat(all(mlaView)).containsOnly(0);
        memory.copyPages(List.of(new PageCopy(mla, new long[] {1}, mlaView, new long[] {1}), new PageCopy(index, new long[] {1}, indexView, new long[] {1})));
        assertThat(all(mlaView)).containsExactly(0, 0, 0, 0, 2, 2, 2, 2);
        assertThat(all(indexView)).containsExactly(0, 0, 2, 2);
    }

    @Test
    void mismatchedBuffersAreRefused() {
        PageBuffer a = memory.allocate("a", 2, 4);
        PageBuffer b = memory.allocate("b", 2, 8);
        assertThatThrownBy(() -> memory.copyPages(a, new long[] {0}, b, new long[] {0}))
                .isInstanceOf(PageSizeMismatchException.class).hasMessage("page sizes differ: a has 4 B, b has 8 B");
        assertThatThrownBy(() -> memory.copyPages(a, new long[] {0, 1}, a, new long[] {0}))
                .isInstanceOf(PageListMismatchException.class).hasMessage("page lists differ in length: 2 source vs 1 destination pages");
        assertThatThrownBy(() -> memory.allocate("huge", 1L << 30, 4)).isInstanceOf(BufferTooLargeException.class)
                .hasMessage("huge: 1073741824 pages of 4 B need 4294967296 bytes, more than one Java array holds (2 GiB); split the pool");
    }

    @Test
    void javaMemoryIsAlwaysThere() {
        try (PageMemory c = PageMemories.open("java")) {
            assertThat(c.deviceName()).isEqualTo("Java heap");
        }
        assertThatThrownBy(() -> PageMemories.open("nope")).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'nope' is unavailable: no provider of that name; available: [java]");
        assertThatThrownBy(() -> PageMemories.open("cuda:x")).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'cuda:x' is unavailable: the device ordinal after ':' is not a number");
        PageMemories.check("java");
        assertThatThrownBy(() -> PageMemories.check("nope:1")).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'nope:1' is unavailable: no provider of that name; available: [java]");
        assertThatThrownBy(() -> PageMemories.check("cuda:x")).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'cuda:x' is unavailable: the device ordinal after ':' is not a number");
    }

    @Test
    void byteRangesOutsideTheBufferMoveNothing() {
        PageBuffer b = filled("pool", 2, 4);
        byte[] out = new byte[3];
        assertThatThrownBy(() -> memory.read(b, 6, 3, out, 0)).isInstanceOf(ByteRangeException.class)
                .hasMessage("pool: bytes [6, 9) lie outside [0, 8)");
        assertThatThrownBy(() -> memory.write(b, -1, new byte[1], 0, 1)).isInstanceOf(ByteRangeException.class);
        assertThatThrownBy(() -> memory.write(b, 7, java.nio.ByteBuffer.wrap(new byte[2]))).isInstanceOf(ByteRangeException.class);
        assertThat(all(b)).containsExactly(1, 1, 1, 1, 2, 2, 2, 2);
        java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(3);
        memory.read(b, 3, direct);
        assertThat(direct.flip().get(0)).isEqualTo((byte) 1);
        assertThat(direct.get(1)).isEqualTo((byte) 2);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        memory.checksum(b, 4, 4, crc);
        java.util.zip.CRC32C expected = new java.util.zip.CRC32C();
        expected.update(new byte[] {2, 2, 2, 2});
        assertThat(crc.getValue()).isEqualTo(expected.getValue());
        PageBuffer foreign = new PageBuffer() {
            @Override public String label() { return "device pool"; }
            @Override public long pages() { return 1; }
            @Override public int pageBytes() { return 4; }
            @Override public Residency residency() { return Residency.DEVICE; }
        };
        assertThatThrownBy(() -> memory.copyPages(foreign, new long[] {0}, b, new long[] {0})).isInstanceOf(ForeignBufferException.class)
                .hasMessage("device pool is not a live buffer of the java page memory");
    }

    /** A batch checks each shared list once per buffer size, yet every row's buffer is still held to its own size, and nothing moves. */
    @Test
    void aBatchChecksSharedListsOncePerSizeAndStillNamesTheFirstBufferTheyDoNotFit() {
        HeapPageMemory memory = new HeapPageMemory();
        PageBuffer big = memory.allocate("big", 8, 4);
        PageBuffer alsoBig = memory.allocate("also big", 8, 4);
        PageBuffer small = memory.allocate("small", 4, 4);
        PageBuffer view = memory.allocate("view", 8, 4);
        memory.write(big, 0, new byte[] {9, 9, 9, 9}, 0, 4);
        memory.write(alsoBig, 0, new byte[] {9, 9, 9, 9}, 0, 4); // a copy of either before the refusal would show in the view
        long[] src = {0, 6};
        long[] dst = {1, 2};
        List<PageCopy> batch = List.of(new PageCopy(big, src, view, dst), new PageCopy(alsoBig, src, view, dst), new PageCopy(small, src, view, dst));
        assertThatThrownBy(() -> memory.copyPages(batch)).isInstanceOf(PageOutOfRangeException.class)
                .hasMessage("small: entry 1 names page 6, outside [0, 4)");
        byte[] first = new byte[4];
        memory.read(view, 4, 4, first, 0);
        assertThat(first).as("nothing moved").containsOnly(0);
        memory.copyPages(batch.subList(0, 1));
        memory.read(view, 4, 4, first, 0);
        assertThat(first).containsOnly(9);
    }
}

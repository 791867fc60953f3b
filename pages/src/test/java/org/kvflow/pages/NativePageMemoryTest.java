package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class NativePageMemoryTest {
    private final NativePageMemory memory = new NativePageMemory();

    @Test
    void bytesWrittenAreReadBackAndLieAtTheBuffersAddress() {
        PageBuffer b = memory.allocate("pool", 4, 8);
        assertThat(b.residency()).isEqualTo(Residency.NATIVE_HOST);
        memory.write(b, 8, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, 0, 8);
        memory.write(b, 24, ByteBuffer.wrap(new byte[] {9, 9}));
        byte[] page1 = new byte[8];
        memory.read(b, 8, 8, page1, 0);
        assertThat(page1).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        long address = memory.address(b);
        assertThat(address % 4096).isZero();
        MemorySegment raw = MemorySegment.ofAddress(address).reinterpret(b.bytes());
        assertThat(raw.get(ValueLayout.JAVA_BYTE, 9)).isEqualTo((byte) 2);
        assertThat(raw.get(ValueLayout.JAVA_BYTE, 25)).isEqualTo((byte) 9);
        raw.set(ValueLayout.JAVA_BYTE, 0, (byte) 42); // what another process's put does
        ByteBuffer view = memory.hostView(b, 0, 2);
        assertThat(view.get(0)).isEqualTo((byte) 42);
        CRC32C viaMemory = new CRC32C();
        memory.checksum(b, 8, 8, viaMemory);
        CRC32C direct = new CRC32C();
        direct.update(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertThat(viaMemory.getValue()).isEqualTo(direct.getValue());
    }

    @Test
    void pagesCopyByListsAfterEveryCheck() {
        PageBuffer pool = memory.allocate("pool", 4, 2);
        memory.write(pool, 0, new byte[] {1, 1, 2, 2, 3, 3, 4, 4}, 0, 8);
        PageBuffer view = memory.allocate("view", 2, 2);
        assertThatThrownBy(() -> memory.copyPages(pool, new long[] {3, 4}, view, new long[] {0, 1}))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("pool: entry 1 names page 4, outside [0, 4)");
        memory.copyPages(pool, new long[] {3, 0}, view, new long[] {0, 1});
        ByteBuffer out = ByteBuffer.allocate(4);
        memory.read(view, 0, out);
        assertThat(out.array()).containsExactly(4, 4, 1, 1);
    }

    @Test
    void aFreedOrForeignBufferIsRefusedAndRangesAreChecked() {
        PageBuffer b = memory.allocate("pool", 2, 4);
        assertThatThrownBy(() -> memory.write(b, 6, new byte[4], 0, 4)).isInstanceOf(ByteRangeException.class)
                .hasMessage("pool: bytes [6, 10) lie outside [0, 8)");
        memory.free(b);
        assertThatThrownBy(() -> memory.address(b)).isInstanceOf(ForeignBufferException.class)
                .hasMessage("pool is not a live buffer of the native page memory");
        PageBuffer heap = new HeapPageMemory().allocate("heap", 1, 4);
        assertThatThrownBy(() -> memory.read(heap, 0, 4, new byte[4], 0)).isInstanceOf(ForeignBufferException.class)
                .hasMessage("heap is not a live buffer of the native page memory");
        PageBuffer kept = memory.allocate("kept", 1, 4);
        memory.close();
        assertThatThrownBy(() -> memory.address(kept)).isInstanceOf(ForeignBufferException.class);
    }
}

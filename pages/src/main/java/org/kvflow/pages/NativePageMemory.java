package org.kvflow.pages;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.Checksum;

/**
 * Host memory off the Java heap ({@code native}): each buffer is one page-aligned segment of its
 * own arena, at an address that does not move, so a transfer engine can register it and write
 * into it from another process ({@link HostAddresses}). Buffers are zeroed; {@link #free} and
 * {@link #close} release them, after which they refuse every use.
 */
public final class NativePageMemory implements PageMemory, HostAddresses {
    /** Buffers start on a page of the host, as memory registration wants. */
    private static final long ALIGN = 4096;

    private static final class NativeBuffer implements PageBuffer {
        private final String label;
        private final long pages;
        private final int pageBytes;
        private final Arena arena = Arena.ofShared();
        final MemorySegment bytes;

        NativeBuffer(String label, long pages, int pageBytes) {
            if (pages < 0 || pageBytes < 1) {
                throw new IllegalArgumentException(label + ": pages must be >= 0 and pageBytes >= 1, were " + pages + ", " + pageBytes);
            }
            this.label = label;
            this.pages = pages;
            this.pageBytes = pageBytes;
            this.bytes = arena.allocate(Math.max(1, Math.multiplyExact(pages, pageBytes)), ALIGN);
        }

        @Override public String label() { return label; }
        @Override public long pages() { return pages; }
        @Override public int pageBytes() { return pageBytes; }
        @Override public Residency residency() { return Residency.NATIVE_HOST; }
    }

    private final HostTraffic traffic = new HostTraffic();
    private final java.util.Set<NativeBuffer> live = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Override
    public String name() {
        return "native";
    }

    @Override
    public String deviceName() {
        return "host memory";
    }

    /** Always empty: every page is on the host already, so its calls cross nothing. */
    @Override
    public HostTraffic hostTraffic() {
        return traffic;
    }

    @Override
    public PageBuffer allocate(String label, long pages, int pageBytes) {
        NativeBuffer b = new NativeBuffer(label, pages, pageBytes);
        live.add(b);
        return b;
    }

    @Override
    public PageBuffer allocateHost(String label, long pages, int pageBytes) {
        return allocate(label, pages, pageBytes);
    }

    @Override
    public long address(PageBuffer buffer) {
        return own(buffer).bytes.address();
    }

    @Override
    public long write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length) {
        NativeBuffer d = own(dst);
        ByteRangeException.check(d, offset, length);
        MemorySegment.copy(src, srcOffset, d.bytes, ValueLayout.JAVA_BYTE, offset, length);
        return 0;
    }

    @Override
    public long write(PageBuffer dst, long offset, ByteBuffer src) {
        NativeBuffer d = own(dst);
        ByteRangeException.check(d, offset, src.remaining());
        d.bytes.asSlice(offset, src.remaining()).copyFrom(MemorySegment.ofBuffer(src));
        src.position(src.limit());
        return 0;
    }

    @Override
    public long read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset) {
        NativeBuffer s = own(src);
        ByteRangeException.check(s, offset, length);
        MemorySegment.copy(s.bytes, ValueLayout.JAVA_BYTE, offset, dst, dstOffset, length);
        return 0;
    }

    @Override
    public long read(PageBuffer src, long offset, ByteBuffer dst) {
        NativeBuffer s = own(src);
        ByteRangeException.check(s, offset, dst.remaining());
        MemorySegment.ofBuffer(dst).copyFrom(s.bytes.asSlice(offset, dst.remaining()));
        dst.position(dst.limit());
        return 0;
    }

    @Override
    public ByteBuffer hostView(PageBuffer buffer, long offset, int length) {
        NativeBuffer b = own(buffer);
        ByteRangeException.check(b, offset, length);
        return b.bytes.asSlice(offset, length).asByteBuffer();
    }

    @Override
    public long checksum(PageBuffer src, long offset, int length, Checksum checksum) {
        NativeBuffer s = own(src);
        ByteRangeException.check(s, offset, length);
        checksum.update(s.bytes.asSlice(offset, length).asByteBuffer());
        return 0;
    }

    @Override
    public long copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        PageCopies.checkPairs(src, srcPages, dst, dstPages);
        MemorySegment from = own(src).bytes;
        MemorySegment to = own(dst).bytes;
        long size = src.pageBytes();
        for (int i = 0; i < srcPages.length; i++) {
            MemorySegment.copy(from, srcPages[i] * size, to, dstPages[i] * size, size);
        }
        return 0;
    }

    @Override
    public void free(PageBuffer buffer) {
        NativeBuffer b = own(buffer);
        if (live.remove(b)) {
            b.arena.close();
        }
    }

    /** Frees every buffer still live. */
    @Override
    public void close() {
        for (NativeBuffer b : live) {
            free(b);
        }
    }

    private NativeBuffer own(PageBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof NativeBuffer b) || !live.contains(b)) {
            throw new ForeignBufferException(buffer.label(), name());
        }
        return b;
    }
}

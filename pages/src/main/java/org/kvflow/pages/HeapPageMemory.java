package org.kvflow.pages;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.Checksum;
import org.kvflow.pages.PageLists;

/** The Java reference memory ({@code java}): buffers are byte arrays, copies are {@code System.arraycopy}. */
public final class HeapPageMemory implements PageMemory {
    /** A heap page buffer; one array, so at most 2 GiB. */
    static final class HeapBuffer implements PageBuffer {
        private final String label;
        private final long pages;
        private final int pageBytes;
        final byte[] bytes;

        HeapBuffer(String label, long pages, int pageBytes) {
            if (pages < 0 || pageBytes < 1) {
                throw new IllegalArgumentException(label + ": pages must be >= 0 and pageBytes >= 1, were " + pages + ", " + pageBytes);
            }
            if (pages * pageBytes > Integer.MAX_VALUE - 8) {
                throw new BufferTooLargeException(label, pages, pageBytes);
            }
            this.label = label;
            this.pages = pages;
            this.pageBytes = pageBytes;
            this.bytes = new byte[(int) (pages * pageBytes)];
        }

        @Override public String label() { return label; }
        @Override public long pages() { return pages; }
        @Override public int pageBytes() { return pageBytes; }
        @Override public Residency residency() { return Residency.HEAP; }
    }

    private final HostTraffic traffic = new HostTraffic();

    @Override
    public String name() {
        return "java";
    }

    @Override
    public String deviceName() {
        return "Java heap";
    }

    /** Always empty: every page of a heap memory is on the host already, so its calls cross nothing. */
    @Override
    public HostTraffic hostTraffic() {
        return traffic;
    }

    @Override
    public PageBuffer allocate(String label, long pages, int pageBytes) {
        return new HeapBuffer(label, pages, pageBytes);
    }

    @Override
    public PageBuffer allocateHost(String label, long pages, int pageBytes) {
        return new HeapBuffer(label, pages, pageBytes);
    }

    @Override
    public long write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length) {
        HeapBuffer d = own(dst);
        ByteRangeException.check(d, offset, length);
        System.arraycopy(src, srcOffset, d.bytes, (int) offset, length);
        return 0;
    }

    @Override
    public long write(PageBuffer dst, long offset, ByteBuffer src) {
        HeapBuffer d = own(dst);
        ByteRangeException.check(d, offset, src.remaining());
        src.get(d.bytes, (int) offset, src.remaining());
        return 0;
    }

    @Override
    public long read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset) {
        HeapBuffer s = own(src);
        ByteRangeException.check(s, offset, length);
        System.arraycopy(s.bytes, (int) offset, dst, dstOffset, length);
        return 0;
    }

    @Override
    public long read(PageBuffer src, long offset, ByteBuffer dst) {
        HeapBuffer s = own(src);
        ByteRangeException.check(s, offset, dst.remaining());
        dst.put(s.bytes, (int) offset, dst.remaining());
        return 0;
    }

    @Override
    public ByteBuffer hostView(PageBuffer buffer, long offset, int length) {
        HeapBuffer b = own(buffer);
        ByteRangeException.check(b, offset, length);
        return ByteBuffer.wrap(b.bytes, (int) offset, length).slice();
    }

    @Override
    public long checksum(PageBuffer src, long offset, int length, Checksum checksum) {
        HeapBuffer s = own(src);
        ByteRangeException.check(s, offset, length);
        checksum.update(s.bytes, (int) offset, length);
        return 0;
    }

    @Override
    public long copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        PageCopies.checkPairs(src, srcPages, dst, dstPages);
        PageLists.copy(own(src).bytes, srcPages, own(dst).bytes, dstPages, src.pageBytes());
        return 0;
    }

    @Override
    public void free(PageBuffer buffer) {
        own(buffer);
    }

    @Override
    public void close() {
        // heap buffers are collected
    }

    private static HeapBuffer own(PageBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof HeapBuffer heap)) {
            throw new ForeignBufferException(buffer.label(), "java");
        }
        return heap;
    }
}

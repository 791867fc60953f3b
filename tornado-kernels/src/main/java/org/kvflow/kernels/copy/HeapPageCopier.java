package org.kvflow.kernels.copy;

import java.util.Objects;
import org.kvflow.kernels.gather.PageCopyKernels;

/** The Java reference copier ({@code java}): buffers are byte arrays, copies are {@code System.arraycopy}. */
public final class HeapPageCopier implements PageCopier {
    /** A heap page buffer; one array, so at most 2 GiB. */
    static final class HeapBuffer implements PageBuffer {
        private final String label;
        private final long pages;
        private final int pageBytes;
        private final Residency residency;
        final byte[] bytes;

        HeapBuffer(String label, long pages, int pageBytes, Residency residency) {
            if (pages < 0 || pageBytes < 1) {
                throw new IllegalArgumentException(label + ": pages must be >= 0 and pageBytes >= 1, were " + pages + ", " + pageBytes);
            }
            if (pages * pageBytes > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException(label + ": " + pages * pageBytes + " bytes exceed one Java array (2 GiB)");
            }
            this.label = label;
            this.pages = pages;
            this.pageBytes = pageBytes;
            this.residency = residency;
            this.bytes = new byte[(int) (pages * pageBytes)];
        }

        @Override public String label() { return label; }
        @Override public long pages() { return pages; }
        @Override public int pageBytes() { return pageBytes; }
        @Override public Residency residency() { return residency; }
    }

    @Override
    public String name() {
        return "java";
    }

    @Override
    public String deviceName() {
        return "Java heap";
    }

    @Override
    public PageBuffer allocate(String label, long pages, int pageBytes) {
        return new HeapBuffer(label, pages, pageBytes, Residency.HEAP);
    }

    @Override
    public PageBuffer allocateHost(String label, long pages, int pageBytes) {
        return new HeapBuffer(label, pages, pageBytes, Residency.HEAP);
    }

    @Override
    public void write(PageBuffer dst, long firstPage, byte[] src, int srcOffset, int pages) {
        HeapBuffer d = own(dst);
        PageCopyKernels.checkPages(d.label, new long[] {firstPage, firstPage + pages - 1}, d.pages);
        System.arraycopy(src, srcOffset, d.bytes, (int) (firstPage * d.pageBytes), pages * d.pageBytes);
    }

    @Override
    public void read(PageBuffer src, long firstPage, int pages, byte[] dst, int dstOffset) {
        HeapBuffer s = own(src);
        PageCopyKernels.checkPages(s.label, new long[] {firstPage, firstPage + pages - 1}, s.pages);
        System.arraycopy(s.bytes, (int) (firstPage * s.pageBytes), dst, dstOffset, pages * s.pageBytes);
    }

    @Override
    public void copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        PageCopies.checkPairs(src, srcPages, dst, dstPages);
        PageCopyKernels.copyPages(own(src).bytes, srcPages, own(dst).bytes, dstPages, src.pageBytes());
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
            throw new IllegalArgumentException(buffer.label() + " was not allocated by the java copier");
        }
        return heap;
    }
}

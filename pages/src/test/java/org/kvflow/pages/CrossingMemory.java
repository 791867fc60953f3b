package org.kvflow.pages;

import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/**
 * The heap memory with every byte its calls move reported as crossed, as a device memory reports
 * the bytes it moves to and from the host: the stage attribution of host traffic, tested without a
 * GPU. Copies between two of its buffers count once per byte copied.
 */
public class CrossingMemory implements PageMemory {
    private final HeapPageMemory heap = new HeapPageMemory();
    private final HostTraffic traffic = new HostTraffic();

    @Override public String name() { return "java"; }
    @Override public String deviceName() { return "Java heap, counted as crossing"; }
    @Override public PageBuffer allocate(String label, long pages, int pageBytes) { return heap.allocate(label, pages, pageBytes); }
    @Override public PageBuffer allocateHost(String label, long pages, int pageBytes) { return heap.allocateHost(label, pages, pageBytes); }
    @Override public ByteBuffer hostView(PageBuffer buffer, long offset, int length) { return heap.hostView(buffer, offset, length); }
    @Override public HostTraffic hostTraffic() { return traffic; }
    @Override public void free(PageBuffer buffer) { heap.free(buffer); }
    @Override public void close() { heap.close(); }

    @Override
    public long write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length) {
        heap.write(dst, offset, src, srcOffset, length);
        return length;
    }

    @Override
    public long write(PageBuffer dst, long offset, ByteBuffer src) {
        int length = src.remaining();
        heap.write(dst, offset, src);
        return length;
    }

    @Override
    public long read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset) {
        heap.read(src, offset, length, dst, dstOffset);
        return length;
    }

    @Override
    public long read(PageBuffer src, long offset, ByteBuffer dst) {
        int length = dst.remaining();
        heap.read(src, offset, dst);
        return length;
    }

    @Override
    public long checksum(PageBuffer src, long offset, int length, Checksum checksum) {
        heap.checksum(src, offset, length, checksum);
        return length;
    }

    @Override
    public long copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        heap.copyPages(src, srcPages, dst, dstPages);
        return (long) srcPages.length * src.pageBytes();
    }
}

package org.kvflow.pages;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The heap with the GPU memory's checksum capabilities, for tests without a GPU: page checksums
 * computed in place in one call a run ({@link InPlaceCrcs}, calls and ranges counted), copies that
 * checksum each page they move ({@link CheckedCopies}), and buffers "opened" by handle
 * ({@link BufferImport}): memories of one host that open a handle see the same heap buffer, as a
 * device buffer opened by several ranks is one buffer.
 */
public class ChecksummingMemory extends CrossingMemory implements InPlaceCrcs, CheckedCopies, BufferImport {
    /** What each handle opened, shared by the memories of one host. */
    private final Map<List<Byte>, PageBuffer> opened;
    private int calls;
    private int ranges;

    /** A memory on a host of its own. */
    public ChecksummingMemory() {
        this.opened = new HashMap<>();
    }

    /** A memory on {@code sameHost}'s host: a handle both open is one buffer. */
    public ChecksummingMemory(ChecksummingMemory sameHost) {
        this.opened = sameHost.opened;
    }

    @Override
    public synchronized int[] crc32c(List<PageBuffer> buffers, long[] pages) {
        calls++;
        ranges += buffers.size() * pages.length;
        return joined(buffers, pages);
    }

    @Override
    public int[] copyPagesChecked(List<PageCopy> copies) {
        PageCopies.checkOneRun(copies);
        copyPages(copies);
        return copies.isEmpty() ? new int[0] : joined(copies.stream().map(PageCopy::dst).toList(), copies.get(0).dstPages());
    }

    /** The one heap buffer a handle stands for, made at its first opening. */
    @Override
    public PageBuffer importBuffer(String label, byte[] handle, long pages, int pageBytes) {
        List<Byte> key = new ArrayList<>(handle.length);
        for (byte b : handle) {
            key.add(b);
        }
        synchronized (opened) {
            return opened.computeIfAbsent(key, k -> new HeapPageMemory().allocate(label, pages, pageBytes));
        }
    }

    /** An opened buffer stays open for the other memories that opened the same handle. */
    @Override
    public void free(PageBuffer buffer) {
        synchronized (opened) {
            if (opened.containsValue(buffer)) {
                return;
            }
        }
        super.free(buffer);
    }

    /** {@return in-place checksum calls so far} */
    public synchronized int calls() {
        return calls;
    }

    /** {@return page ranges (a page of a buffer each) checksummed in place so far} */
    public synchronized int ranges() {
        return ranges;
    }

    /** Each page's checksum over the buffers in turn: a buffer's page at a time, joined as the GPU joins them. */
    private int[] joined(List<PageBuffer> buffers, long[] pages) {
        int[] joined = new int[pages.length];
        for (PageBuffer buffer : buffers) {
            int bytes = buffer.pageBytes();
            int multiplier = Crc32cCombine.multiplier(bytes);
            for (int k = 0; k < pages.length; k++) {
                CRC32C crc = new CRC32C();
                checksum(buffer, pages[k] * bytes, bytes, crc);
                joined[k] = Crc32cCombine.times(multiplier, joined[k]) ^ (int) crc.getValue();
            }
        }
        return joined;
    }
}

package org.kvflow.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import java.util.zip.Checksum;
import org.kvflow.pages.ByteRangeException;
import org.kvflow.pages.ForeignBufferException;
import org.kvflow.pages.HostTraffic;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.NotHostMemoryException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopies;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.Residency;
import org.kvflow.pages.StoreHandles;
import org.kvflow.pages.BufferImport;

/**
 * The memory of rank pools this process cannot open in place (the ranks' memory exports no
 * handles, or this process's memory cannot open them): each of its buffers is one layer and
 * component of a rank's pool, and every read, write and copy is a staged copy over that rank's
 * control connection ({@code read}, {@code write}, {@code pages}, {@code writePages} in
 * {@code docs/formats.md}), counted by stage in {@link #hostTraffic()}. Slower than in place (each run crosses a socket),
 * but every stage works on such pools; a copy to or from another memory goes through the host as
 * between any two memories. Allocates nothing. Thread-safe.
 */
final class StagedRankMemory implements PageMemory, BufferImport {
    /** Largest run of bytes one control frame carries (well under {@link ControlFrame#MAX_FRAME}). */
    static final int CHUNK = 4 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] MAGIC = {'K', 'V', 'S', '1'};

    /** Sends one request, with the bytes it stores or none, to a rank and waits for its reply (the rank's refusal or loss as a typed error). */
    interface Calls {
        RankChannel.Reply call(int rank, ObjectNode request, byte @Nullable [] bytes);
    }

    /** One layer and component of a rank's pool. */
    private record RankBuffer(String label, int rank, int layer, KvComponent component, long pages, int pageBytes) implements PageBuffer {
        @Override
        public Residency residency() {
            return Residency.REMOTE;
        }

        ObjectNode request(String op) {
            return JSON.createObjectNode().put("op", op).put("layer", layer).put("component", component.name());
        }
    }

    private final Calls calls;
    private final HostTraffic traffic = new HostTraffic();

    StagedRankMemory(Calls calls) {
        this.calls = Objects.requireNonNull(calls, "calls");
    }

    /** What {@link org.kvflow.pages.PageStore#open} needs to open rank {@code rank}'s pool here. */
    static StoreHandles handles(int rank, int layers, int pageSize, int pages) {
        java.util.List<byte[]> mla = new java.util.ArrayList<>();
        java.util.List<byte[]> index = new java.util.ArrayList<>();
        for (int l = 0; l < layers; l++) {
            mla.add(handle(rank, l, KvComponent.MLA));
            index.add(handle(rank, l, KvComponent.INDEX));
        }
        return new StoreHandles(pageSize, pages, mla, index);
    }

    private static byte[] handle(int rank, int layer, KvComponent component) {
        return ByteBuffer.allocate(13).put(MAGIC).putInt(rank).putInt(layer).put((byte) component.ordinal()).array();
    }

    @Override
    public String name() {
        return "staged";
    }

    @Override
    public String deviceName() {
        return "rank processes' pools over their control connections";
    }

    @Override
    public PageBuffer allocate(String label, long pages, int pageBytes) {
        throw new UnsupportedOperationException("the staged memory allocates nothing: its buffers are rank processes' pools");
    }

    @Override
    public PageBuffer allocateHost(String label, long pages, int pageBytes) {
        return allocate(label, pages, pageBytes);
    }

    /** Opens one layer and component of a rank's pool from a handle of {@link #handles}. */
    @Override
    public PageBuffer importBuffer(String label, byte[] handle, long pages, int pageBytes) {
        ByteBuffer h = ByteBuffer.wrap(handle);
        if (handle.length != 13 || h.getInt() != ByteBuffer.wrap(MAGIC).getInt()) {
            throw new IllegalArgumentException(label + ": not a staged rank handle (" + handle.length + " bytes)");
        }
        int rank = h.getInt();
        int layer = h.getInt();
        int component = h.get();
        if (rank < 0 || layer < 0 || component < 0 || component >= KvComponent.values().length) {
            throw new IllegalArgumentException(label + ": a staged rank handle of rank " + rank + ", layer " + layer + ", component " + component);
        }
        return new RankBuffer(label, rank, layer, KvComponent.values()[component], pages, pageBytes);
    }

    @Override
    public long write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length) {
        RankBuffer d = own(dst);
        ByteRangeException.check(d, offset, length);
        for (int done = 0; done < length; done += CHUNK) {
            int n = Math.min(CHUNK, length - done);
            byte[] part = java.util.Arrays.copyOfRange(src, srcOffset + done, srcOffset + done + n);
            calls.call(d.rank(), d.request("write").put("offset", offset + done), part);
        }
        return length;
    }

    @Override
    public long write(PageBuffer dst, long offset, ByteBuffer src) {
        byte[] bytes = new byte[src.remaining()];
        src.get(bytes);
        return write(dst, offset, bytes, 0, bytes.length);
    }

    @Override
    public long read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset) {
        RankBuffer s = own(src);
        ByteRangeException.check(s, offset, length);
        for (int done = 0; done < length; done += CHUNK) {
            int n = Math.min(CHUNK, length - done);
            byte[] part = bytes(calls.call(s.rank(), s.request("read").put("offset", offset + done).put("length", n), null), n, s);
            System.arraycopy(part, 0, dst, dstOffset + done, n);
        }
        return length;
    }

    @Override
    public long read(PageBuffer src, long offset, ByteBuffer dst) {
        byte[] bytes = new byte[dst.remaining()];
        long crossed = read(src, offset, bytes.length, bytes, 0);
        dst.put(bytes);
        return crossed;
    }

    @Override
    public ByteBuffer hostView(PageBuffer buffer, long offset, int length) {
        throw new NotHostMemoryException(own(buffer).label(), "another process");
    }

    @Override
    public long checksum(PageBuffer src, long offset, int length, Checksum checksum) {
        for (int done = 0; done < length; done += CHUNK) {
            int n = Math.min(CHUNK, length - done);
            byte[] part = new byte[n];
            read(src, offset + done, n, part, 0);
            checksum.update(part, 0, n);
        }
        return length;
    }

    /**
     * Between two rank buffers (any ranks): the source rank sends the pages ({@code pages}), the
     * destination stores them ({@code writePages}); every byte crosses this process twice.
     */
    @Override
    public long copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        PageCopies.checkPairs(src, srcPages, dst, dstPages);
        RankBuffer s = own(src);
        RankBuffer d = own(dst);
        int per = Math.max(1, CHUNK / s.pageBytes());
        for (int from = 0; from < srcPages.length; from += per) {
            int to = Math.min(srcPages.length, from + per);
            ObjectNode read = s.request("pages");
            ObjectNode write = d.request("writePages");
            for (int i = from; i < to; i++) {
                read.withArray("pages").add(srcPages[i]);
                write.withArray("pages").add(dstPages[i]);
            }
            byte[] pages = bytes(calls.call(s.rank(), read, null), (to - from) * s.pageBytes(), s);
            calls.call(d.rank(), write, pages);
        }
        return 2L * srcPages.length * s.pageBytes();
    }

    private static byte[] bytes(RankChannel.Reply reply, int expected, RankBuffer from) {
        byte[] bytes = reply.bytes();
        int got = bytes == null ? 0 : bytes.length;
        if (bytes == null || got != expected) {
            throw new IllegalStateException(from.label() + ": rank " + from.rank() + " sent " + got + " bytes for " + expected);
        }
        return bytes;
    }

    /** What its stores moved over the control connections, by stage (all of it crosses this process's heap). */
    @Override
    public HostTraffic hostTraffic() {
        return traffic;
    }

    /** Nothing to free: the pages are the rank's. */
    @Override
    public void free(PageBuffer buffer) {
        own(buffer);
    }

    @Override
    public void close() {
        // the pools are the rank processes'; their connections are closed by RankProcesses
    }

    private static RankBuffer own(PageBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof RankBuffer rank)) {
            throw new ForeignBufferException(buffer.label(), "staged");
        }
        return rank;
    }
}

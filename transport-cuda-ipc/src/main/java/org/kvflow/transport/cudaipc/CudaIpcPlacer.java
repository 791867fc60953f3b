package org.kvflow.transport.cudaipc;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvflow.pages.BufferImport;
import org.kvflow.pages.CheckedCopies;
import org.kvflow.pages.ForeignBufferException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.MissingCapabilityException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.transport.tcp.PageCrcs;
import org.kvflow.transport.tcp.PagePlacer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The prefill side of the {@code cuda-ipc} engine: the decode pool a connection's handshake
 * described is opened in place, once, in the memory of the rank stores that send to it (the cuda
 * one: the prefill pools must lie in GPU memory); a run of pages then goes in one copy launch over
 * every layer and pool, GPU to GPU, that also computes each page's CRC32C from the bytes as it
 * copies them (one read serves both), joined on the GPU in the protocol's page order. Opened pools no
 * connection describes any more (the decode server restarted) are closed at the next handshake.
 * Copies block a worker thread ({@link Schedulers#boundedElastic()}), never the caller's, and run
 * side by side for ranks in different memories; a pool closed while a copy waits for its memory
 * fails that copy whole (the memory no longer knows the buffer), never halfway.
 */
public final class CudaIpcPlacer implements PagePlacer {
    private final IpcLandingDescription[] lanes;
    private final byte[][] described;
    /** The decode pools opened, by the memory they were opened in and the description they came from. */
    private final Map<Opened, List<PageBuffer>> opened = new HashMap<>();
    private boolean closed;

    private record Opened(PageMemory memory, ByteBuffer description) {}

    /**
     * @param lanes connections of the backend (its CP size)
     */
    public CudaIpcPlacer(int lanes) {
        if (lanes < 1) {
            throw new IllegalArgumentException("a CUDA IPC placer of " + lanes + " connections (at least 1)");
        }
        this.lanes = new IpcLandingDescription[lanes];
        this.described = new byte[lanes][];
    }

    @Override
    public String engine() {
        return CudaIpcEngine.NAME;
    }

    /** Keeps the connection's description (checked now); closes pools that no connection describes any more. */
    @Override
    public synchronized void connected(int lane, byte[] decodeSide) {
        check(lane);
        lanes[lane] = IpcLandingDescription.parse(decodeSide);
        described[lane] = decodeSide.clone();
        opened.entrySet().removeIf(e -> {
            boolean stale = !describedNow(e.getKey().description());
            if (stale) {
                free(e.getKey().memory(), e.getValue());
            }
            return stale;
        });
    }

    @Override
    public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
        return Mono.fromCallable(() -> copy(lane, source, srcStart, dstStart, length)).subscribeOn(Schedulers.boundedElastic());
    }

    /**
     * Copies pages {@code srcStart ..} of {@code source} into decode pages {@code dstStart ..};
     * returns their checksums. The placer's lock covers only the checks and the opened pools: the
     * copy itself runs outside it, so ranks whose stores lie in memories of their own (a stream
     * each) copy side by side; a memory serializes its own calls.
     */
    private int[] copy(int lane, PageStore source, long srcStart, long dstStart, int length) {
        CheckedCopies checked;
        List<PageBuffer> pool;
        synchronized (this) {
            check(lane);
            IpcLandingDescription landing = lanes[lane];
            if (landing == null) {
                throw new IllegalStateException("connection " + lane + " has not shaken hands with a cuda-ipc decode server");
            }
            fits(landing, source, dstStart, length);
            PageMemory memory = source.memory();
            BufferImport imports = memory.capability(BufferImport.class).orElseThrow(() -> new MissingCapabilityException(memory.name(),
                    BufferImport.class, "cannot open the decode pool in place: cuda-ipc needs the prefill pools in GPU memory (device cuda)"));
            checked = memory.capability(CheckedCopies.class).orElseThrow(() -> new MissingCapabilityException(memory.name(),
                    CheckedCopies.class, "cannot copy pages with their checksums in one pass"));
            pool = opened.computeIfAbsent(new Opened(memory, ByteBuffer.wrap(described[lane])), k -> open(imports, landing));
        }
        long[] src = run(srcStart, length);
        long[] dst = run(dstStart, length);
        List<PageBuffer> from = PageCrcs.buffers(source); // the contract's page order, which the decode pool's description follows
        List<PageCopy> batch = new ArrayList<>(from.size());
        for (int b = 0; b < from.size(); b++) {
            batch.add(new PageCopy(from.get(b), src, pool.get(b), dst));
        }
        return checked.copyPagesChecked(batch);
    }

    /** Checks that the decode pool the handshake described holds {@code source}'s buffers and decode pages {@code dstStart ..}. */
    private static void fits(IpcLandingDescription landing, PageStore source, long dstStart, int length) {
        int layers = source.layers();
        if (landing.buffers().size() != 2 * layers) {
            throw new IllegalArgumentException("the decode side exported " + landing.buffers().size() + " buffers; " + layers + " layers need " + 2 * layers);
        }
        for (KvComponent component : KvComponent.values()) {
            for (int l = 0; l < layers; l++) {
                IpcLandingDescription.Buffer b = landing.buffers().get(component.ordinal() * layers + l);
                if (b.pageBytes() != source.pageBytes(component)) {
                    throw new IllegalArgumentException("the decode pool's " + component + " pages of layer " + l + " hold " + b.pageBytes() + " bytes; "
                            + source.label() + "'s hold " + source.pageBytes(component));
                }
                if (dstStart < 0 || dstStart + length > b.pages()) {
                    throw new IllegalArgumentException("decode pages " + dstStart + ".." + (dstStart + length - 1) + " lie past the decode pool's "
                            + component + " buffer of layer " + l + " (" + b.pages() + " pages)");
                }
            }
        }
    }

    private static List<PageBuffer> open(BufferImport imports, IpcLandingDescription landing) {
        List<PageBuffer> pool = new ArrayList<>(landing.buffers().size());
        for (int i = 0; i < landing.buffers().size(); i++) {
            IpcLandingDescription.Buffer b = landing.buffers().get(i);
            pool.add(imports.importBuffer("decode pool buffer " + i + " of process " + landing.pid(), b.handle(), b.pages(), b.pageBytes()));
        }
        return pool;
    }

    /** Closes every opened pool; later calls fail. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        opened.forEach((k, pool) -> free(k.memory(), pool));
        opened.clear();
    }

    /** {@return how many decode pools are open in place now} */
    synchronized int openPools() {
        return opened.size();
    }

    private boolean describedNow(ByteBuffer description) {
        for (byte[] d : described) {
            if (d != null && ByteBuffer.wrap(d).equals(description)) {
                return true;
            }
        }
        return false;
    }

    /** Closes the handles of an opened pool; one its memory already released (the memory closed first) is skipped. */
    private static void free(PageMemory memory, List<PageBuffer> pool) {
        for (PageBuffer b : pool) {
            try {
                memory.free(b);
            } catch (ForeignBufferException | IllegalStateException released) {
                // the memory closed before this placer, and its close released the handle
            }
        }
    }

    private void check(int lane) {
        if (closed) {
            throw new IllegalStateException("the CUDA IPC placer is closed");
        }
        if (lane < 0 || lane >= lanes.length) {
            throw new IllegalArgumentException("connection " + lane + " of a CUDA IPC placer of " + lanes.length);
        }
    }

    private static long[] run(long start, int length) {
        long[] pages = new long[length];
        for (int k = 0; k < length; k++) {
            pages[k] = start + k;
        }
        return pages;
    }
}

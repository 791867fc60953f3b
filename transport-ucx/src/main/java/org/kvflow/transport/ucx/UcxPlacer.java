package org.kvflow.transport.ucx;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transport.tcp.PagePlacer;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The prefill side of the {@code ucx} engine: per connection (one per CP rank) a worker and an
 * endpoint to the decode worker, with the remote keys of the decode pool's buffers that connection's
 * handshake described. A run of pages is read from the rank's store into registered staging
 * buffers a layer and a component at a time, in parts of about a MiB (so a part is
 * still in the core's cache when its checksum and its put read it again), each part put into its
 * decode pages with a one-sided UCX put while the next parts are staged in the other buffers, and
 * the endpoint flushed, so the pages are in the decode pool when the call completes; each page's
 * CRC32C is taken from the staged bytes in the protocol's page order. Puts block a worker thread
 * ({@link Schedulers#boundedElastic()}), never the caller's, and for at most the call timeout: a put
 * or flush a vanished decode process never completes fails the call, and that connection's endpoint
 * is dropped (closed without a flush) until its next handshake.
 */
public final class UcxPlacer implements PagePlacer {
    /** Bytes a staged part aims at by default: whole pages, at least one. */
    private static final int PART_BYTES = 1 << 20;
    /** Staging buffers a connection cycles through: a part is staged while the puts of the others are in flight. */
    private static final int STAGES = 4;
    /** How long dropping an endpoint waits for its forced close before the worker is destroyed with it. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(1);
    private final UcpContext context = new UcpContext(new UcpParams().requestRmaFeature());
    private final Lane[] lanes;
    /** Bytes a staged part aims at. */
    private final int partBytes;
    /** How long one {@link #place} may wait on UCX. */
    private final Duration timeout;
    private volatile boolean closed;

    /**
     * @param lanes   connections of the backend (its CP size)
     * @param timeout how long one call may wait for its puts to complete
     */
    public UcxPlacer(int lanes, Duration timeout) {
        this(lanes, timeout, PART_BYTES);
    }

    /** With parts of {@code partBytes} (rounded down to whole pages, at least one): tests cut a run into several. */
    UcxPlacer(int lanes, Duration timeout, int partBytes) {
        this.partBytes = partBytes;
        this.timeout = timeout;
        if (lanes < 1) {
            throw new IllegalArgumentException("a UCX placer of " + lanes + " connections (at least 1)");
        }
        this.lanes = new Lane[lanes];
        for (int i = 0; i < lanes; i++) {
            this.lanes[i] = new Lane(i);
        }
    }

    @Override
    public String engine() {
        return UcxEngine.NAME;
    }

    @Override
    public void connected(int lane, byte[] decodeSide) {
        lane(lane).connect(LandingDescription.parse(decodeSide));
    }

    @Override
    public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
        return Mono.fromCallable(() -> lane(lane).put(source, srcStart, dstStart, length)).subscribeOn(Schedulers.boundedElastic());
    }

    /** Closes every connection's endpoint and worker, then the context; later calls fail. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Lane l : lanes) {
            l.close();
        }
        context.close();
    }

    private Lane lane(int lane) {
        if (closed) {
            throw new IllegalStateException("the UCX placer is closed");
        }
        if (lane < 0 || lane >= lanes.length) {
            throw new IllegalArgumentException("connection " + lane + " of a UCX placer of " + lanes.length);
        }
        return lanes[lane];
    }

    /** One connection's UCX side: its worker, its endpoint to the decode worker, the keys, and a staging buffer. */
    private final class Lane {
        private final int index;
        private @Nullable UcpWorker worker;
        private @Nullable UcpEndpoint endpoint;
        private List<LandingDescription.Region> regions = List.of();
        private UcpRemoteKey[] keys = new UcpRemoteKey[0];
        /** Staging buffers, registered with UCX: a part is staged in one while the others' puts are in flight. */
        private final @Nullable ByteBuffer[] staging = new ByteBuffer[STAGES];
        private final @Nullable UcpMemory[] stagingMemory = new UcpMemory[STAGES];

        Lane(int index) {
            this.index = index;
        }

        /** (Re)connects to the decode worker a handshake described: the old endpoint and keys are closed first. */
        synchronized void connect(LandingDescription landing) {
            disconnect();
            UcpWorker w = context.newWorker(new UcpWorkerParams().requestThreadSafety());
            worker = w;
            UcpEndpoint e = w.newEndpoint(new UcpEndpointParams().setUcpAddress(direct(landing.worker()))
                    .setName("kvflow prefill rank " + index));
            endpoint = e;
            regions = landing.buffers();
            keys = new UcpRemoteKey[regions.size()];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = e.unpackRemoteKey(direct(regions.get(i).key()));
            }
        }

        /**
         * Puts pages {@code srcStart ..} of {@code source} into decode pages {@code dstStart ..}; returns their checksums.
         *
         * @throws TimeoutException if UCX did not complete the puts within the timeout (the endpoint is dropped)
         */
        synchronized int[] put(PageStore source, long srcStart, long dstStart, int length) throws Exception {
            UcpWorker w = worker;
            UcpEndpoint e = endpoint;
            if (w == null || e == null) {
                throw new IllegalStateException("connection " + index + " has not shaken hands with a ucx decode server");
            }
            try {
                return put(w, e, source, srcStart, dstStart, length, System.nanoTime() + timeout.toNanos());
            } catch (TimeoutException gone) {
                disconnect();
                throw gone;
            }
        }

        private int[] put(UcpWorker w, UcpEndpoint e, PageStore source, long srcStart, long dstStart, int length, long deadline) throws Exception {
            int layers = source.layers();
            if (regions.size() != 2 * layers) {
                throw new IllegalArgumentException("the decode side registered " + regions.size() + " buffers; " + layers + " layers need " + 2 * layers);
            }
            for (KvComponent component : KvComponent.values()) {
                int pageBytes = source.pageBytes(component);
                for (int l = 0; l < layers; l++) {
                    LandingDescription.Region region = regions.get(component.ordinal() * layers + l);
                    if (dstStart < 0 || (dstStart + length) * pageBytes > region.length()) {
                        throw new IllegalArgumentException("decode pages " + dstStart + ".." + (dstStart + length - 1) + " lie past the decode pool's "
                                + component + " buffer of layer " + l + " (" + region.length() / pageBytes + " pages)");
                    }
                }
            }
            CRC32C[] crcs = new CRC32C[length];
            for (int k = 0; k < length; k++) {
                crcs[k] = new CRC32C();
            }
            UcpRequest[] inFlight = new UcpRequest[STAGES];
            int part = 0;
            for (KvComponent component : KvComponent.values()) {
                int pageBytes = source.pageBytes(component);
                int partPages = Math.max(1, partBytes / pageBytes);
                for (int l = 0; l < layers; l++) {
                    int at = component.ordinal() * layers + l;
                    for (int first = 0; first < length; first += partPages, part++) {
                        int pages = Math.min(partPages, length - first);
                        long bytes = (long) pages * pageBytes;
                        int buffer = part % STAGES;
                        if (inFlight[buffer] != null) {
                            await(w, inFlight[buffer], deadline, timeout, "connection " + index + ": a put"); // that buffer's last put has left it
                        }
                        ByteBuffer stage = staging(buffer, bytes);
                        source.readPages(l, component, srcStart + first, pages, stage.duplicate().clear().limit((int) bytes));
                        for (int k = 0; k < pages; k++) {
                            crcs[first + k].update(stage.duplicate().clear().position(k * pageBytes).limit((k + 1) * pageBytes));
                        }
                        long remote = regions.get(at).address() + (dstStart + first) * pageBytes;
                        inFlight[buffer] = e.putNonBlocking(UcxUtils.getAddress(stage), bytes, remote, keys[at], null);
                    }
                }
            }
            for (UcpRequest r : inFlight) {
                if (r != null) {
                    await(w, r, deadline, timeout, "connection " + index + ": a put");
                }
            }
            await(w, e.flushNonBlocking(null), deadline, timeout, "connection " + index + ": the flush of its puts");
            int[] out = new int[length];
            for (int k = 0; k < length; k++) {
                out[k] = (int) crcs[k].getValue();
            }
            return out;
        }

        /** Staging buffer {@code i} with at least {@code bytes}, registered with UCX; grown (and registered again) as runs need. */
        private ByteBuffer staging(int i, long bytes) {
            if (bytes > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("a UCX put of " + bytes + " bytes (at most " + Integer.MAX_VALUE + " a part)");
            }
            ByteBuffer s = staging[i];
            if (s == null || s.capacity() < bytes) {
                UcpMemory old = stagingMemory[i];
                if (old != null) {
                    old.deregister();
                }
                s = ByteBuffer.allocateDirect((int) Math.max(bytes, partBytes));
                stagingMemory[i] = context.registerMemory(s);
                staging[i] = s;
            }
            return s;
        }

        /**
         * Closes the keys, then the endpoint without a flush (every put was flushed, or is abandoned
         * to a peer that may be gone, on which a flushing close would wait forever), then the worker.
         */
        private void disconnect() {
            for (UcpRemoteKey k : keys) {
                k.close();
            }
            keys = new UcpRemoteKey[0];
            UcpWorker w = worker;
            UcpEndpoint e = endpoint;
            endpoint = null;
            worker = null;
            if (w != null && e != null) {
                try {
                    await(w, e.closeNonBlockingForce(), System.nanoTime() + CLOSE_WAIT.toNanos(), CLOSE_WAIT, "connection " + index + ": closing its endpoint");
                } catch (Exception notClosed) {
                    // destroying the worker below releases an endpoint whose close did not finish
                }
            }
            if (w != null) {
                w.close();
            }
        }

        synchronized void close() {
            disconnect();
            for (int i = 0; i < STAGES; i++) {
                UcpMemory m = stagingMemory[i];
                if (m != null) {
                    m.deregister();
                    stagingMemory[i] = null;
                }
            }
        }
    }

    /**
     * Progresses {@code w} until {@code r} completes.
     *
     * @param deadline a {@link System#nanoTime()} value
     * @param allowed  the time the call was given, for the error
     * @param what     the operation, for the error
     * @throws TimeoutException naming {@code what} if {@code r} has not completed by {@code deadline}
     */
    static void await(UcpWorker w, UcpRequest r, long deadline, Duration allowed, String what) throws Exception {
        while (!r.isCompleted()) {
            w.progress();
            if (System.nanoTime() - deadline > 0 && !r.isCompleted()) {
                throw new TimeoutException(what + " did not complete within " + allowed.toMillis() + " ms; the decode side is taken as gone");
            }
        }
    }

    private static ByteBuffer direct(byte[] bytes) {
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
        b.put(bytes).flip();
        return b;
    }
}

package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.decode.DecodePoolFullException;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.pages.KvComponent;

/**
 * One connection of a {@link DecodeServer}: its handshake state, the prefill client it speaks for,
 * and the answer to each of its frames (the protocol's checks, the receiver's calls, the refusals).
 */
final class DecodeSession {
    private final DecodeServer server;
    private final DecodeReceiver receiver;
    final String peer;
    private DecodeServer.@Nullable Client client;
    private @Nullable String clientId;
    /** The name of the certificate the peer showed (read at HELLO, after the TLS handshake); null on plain TCP. */
    private final java.util.function.Supplier<@Nullable String> peerCertificate;
    private @Nullable String certificate;
    volatile boolean hello;
    /** Whether this connection holds one of the server's slots for connections before HELLO; given back once, at HELLO or close. */
    private final java.util.concurrent.atomic.AtomicBoolean pendingSlot = new java.util.concurrent.atomic.AtomicBoolean();
    private int layers;
    private int prefillCp;
    /** The engine this connection's HELLO chose: {@code tcp}, or the server's landing's. */
    private String engine = Frames.TCP;

    DecodeSession(DecodeServer server, String peer, java.util.function.Supplier<@Nullable String> peerCertificate) {
        this.server = server;
        this.receiver = server.receiver();
        this.peer = peer;
        this.peerCertificate = peerCertificate;
    }

    /**
     * Takes one of the server's slots for connections before HELLO, held until HELLO or close.
     *
     * @return the connections now waiting for their HELLO, this one included
     */
    int takePendingSlot() {
        pendingSlot.set(true);
        return server.pending.incrementAndGet();
    }

    private void givePendingSlotBack() {
        if (pendingSlot.compareAndSet(true, false)) {
            server.pending.decrementAndGet();
        }
    }

    byte[] answer(ByteBuf frame) {
        try {
            if (frame.readableBytes() == 0) {
                throw new Refusal("E-PD-0", "empty frame");
            }
            byte type = frame.getByte(frame.readerIndex());
            if (!hello && type != Frames.HELLO) {
                throw new Refusal("E-PD-0", "handshake first");
            }
            if (type == Frames.PAGES) {
                return pages(frame.skipBytes(1));
            }
            if (type == Frames.PLACED) {
                return placed(frame.skipBytes(1));
            }
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            Frames.Reader r = new Frames.Reader(bytes);
            r.skipType();
            return switch (type) {
                case Frames.HELLO -> hello(r);
                case Frames.OPEN -> open(r);
                case Frames.COMPLETE -> {
                    String id = owned(r.id());
                    receiver.complete(id, r.i32());
                    yield Frames.ack();
                }
                case Frames.ABORT -> { // a ready request is decode's now: whoever consumes it may release it
                    String id = r.id();
                    if (!receiver.isReady(id)) {
                        owned(id);
                    }
                    receiver.release(id);
                    server.owners.dropIfGone(id);
                    yield Frames.ack();
                }
                case Frames.DIGEST -> {
                    String id = certificates(r.id(), "DIGEST reads only its own requests");
                    long seqLen = r.i64();
                    yield new Frames.Writer(Frames.DIGESTED, 13).i64(receiver.digest(id, seqLen)).i32(receiver.writtenPages(id))
                            .u8(receiver.isReady(id) ? 1 : 0).bytes();
                }
                case Frames.RELEASE -> { // decode took a ready request: its pages go back to the pool
                    String id = r.id();
                    if (!receiver.isReady(id)) {
                        throw new Refusal("E-PD-STATE", receiver.pageCount(id) == 0 ? "request " + id + " is not open"
                                : "request " + id + " is not ready: RELEASE frees a ready request, ABORT ends a transfer");
                    }
                    receiver.release(id);
                    server.owners.dropIfGone(id);
                    yield Frames.ack();
                }
                case Frames.STATS -> new Frames.Writer(Frames.STATISTICS, 24).i64(server.rejectedPages()).i32(receiver.openSessions())
                        .i32(receiver.readySessions()).i64(receiver.expiredSessions()).bytes();
                default -> throw new Refusal("E-PD-0", "unknown frame type " + type);
            };
        } catch (Refusal e) {
            return refuse(e.code, e.getMessage(), e.getMessage());
        } catch (TransferRejectedException e) { // the requester knows its request: the reason alone goes back, the log names it
            return refuse("E-PD-PAGE", e.getMessage(), e.reason());
        } catch (DecodePoolFullException e) {
            return refuse("E-PD-POOL", e.getMessage(), e.reason());
        } catch (RuntimeException e) { // a frame shorter than its fields (BufferUnderflowException, IndexOutOfBoundsException)
            // Netty's bounds messages describe its buffer, not the frame: they never go to the peer or the log
            boolean ours = e.getMessage() != null && !(e instanceof IndexOutOfBoundsException) && !(e instanceof java.nio.BufferUnderflowException);
            String why = "malformed frame: " + (ours ? e.getMessage() : "fields run past its end");
            return refuse("E-PD-0", why, why);
        }
    }

    /** Logs {@code logged} and answers {@code sent}. */
    private byte[] refuse(String code, String logged, String sent) {
        server.refusals.refused(peer, code, logged);
        return Frames.reject(code, sent);
    }

    /**
     * {@code id}, if it belongs to this connection's certificate (under mutual TLS, ids begin with its
     * name and a slash; on plain TCP every id passes); else refused, saying {@code rule}.
     */
    private String certificates(String id, String rule) {
        if (certificate != null && !id.startsWith(certificate + "/")) {
            throw new Refusal("E-PD-OWNER", "request " + id + " is not certificate " + certificate + "'s: under mutual TLS " + rule);
        }
        return id;
    }

    /** {@code id}, if this connection's client opened it; a request another client opened is refused. */
    private String owned(String id) {
        if (!server.owners.owns(id, owner()) && receiver.pageCount(id) > 0) {
            throw new Refusal("E-PD-OWNER", "request " + id + " was opened by another client");
        }
        return id;
    }

    /** The client this connection joined at HELLO (every other frame comes after it). */
    private DecodeServer.Client owner() {
        return java.util.Objects.requireNonNull(client, "a frame before HELLO");
    }

    private byte[] open(Frames.Reader r) {
        String id = certificates(r.id(), "its ids begin with '" + certificate + "/'");
        int pageCount = r.i32();
        int senders = r.i32();
        if (senders < 1 || senders > prefillCp) {
            throw new TransferRejectedException(id, senders + " senders outside [1, " + prefillCp + "] (the prefill's CP size)");
        }
        int cap = server.limits.pagesPerClient();
        if (cap < Integer.MAX_VALUE) {
            long held = server.owners.pagesHeldBy(owner());
            if (held + pageCount > cap) {
                throw new Refusal("E-PD-QUOTA", "request " + id + ": this client's requests hold " + held + " decode pages; " + pageCount
                        + " more would pass its share of " + cap);
            }
        }
        long[] pages = server.owners.open(id, owner(), () -> receiver.open(id, pageCount, senders));
        Frames.Writer w = new Frames.Writer(Frames.OPENED, 4 + 8 * pages.length).i32(pages.length);
        for (long p : pages) {
            w.i64(p);
        }
        return w.bytes();
    }

    /** The connection closed: if it was its client's last, the requests the client opened and did not finish go back to the pool. */
    void closed() {
        givePendingSlotBack();
        DecodeServer.Client c = client;
        if (c == null) {
            return;
        }
        synchronized (server.clients) {
            if (--c.connections > 0) {
                return;
            }
            server.clients.remove(clientId);
        }
        server.owners.clientGone(c);
    }

    /** Joins the client of id {@code hexId} (and, under mutual TLS, of this peer's certificate): this connection speaks for it from now on. */
    private void join(String hexId) {
        if (client != null) {
            throw new Refusal("E-PD-0", "HELLO twice on one connection");
        }
        certificate = peerCertificate.get();
        String id = certificate == null ? hexId : certificate + "|" + hexId;
        synchronized (server.clients) {
            DecodeServer.Client c = server.clients.computeIfAbsent(id, k -> new DecodeServer.Client());
            int cap = server.limits.connectionsPerClient();
            if (c.connections >= cap) {
                throw new Refusal("E-PD-QUOTA", "client " + hexId.substring(0, 8) + "… holds " + c.connections + " connections, at most " + cap);
            }
            c.connections++;
            client = c;
            clientId = id;
        }
    }

    private byte[] hello(Frames.Reader r) {
        if (r.i32() != Frames.MAGIC) {
            throw new Refusal("E-PD-0", "not a kvflow PD client");
        }
        int pageSize = r.i32();
        int dtype = r.u8();
        int clientLayers = r.i32();
        int mlaRow = r.i32();
        int indexRow = r.i32();
        int cp = r.i32();
        KvLayout layout = receiver.layout();
        String mine = "decode page size " + receiver.pageSize() + (layout == null ? ", pages only"
                : ", kv " + layout.dtype().wireName() + " (" + layout.mlaRowBytes() + " B rows, " + layout.shape().layers() + " layers)");
        boolean layoutMatches = layout == null ? mlaRow == 0
                : layout.dtype().ordinal() == dtype && layout.mlaRowBytes() == mlaRow && layout.indexRowBytes() == indexRow
                && layout.shape().layers() == clientLayers;
        if (pageSize != receiver.pageSize() || !layoutMatches) {
            throw new Refusal("E-PD-4", "page size / kv dtype mismatch: " + mine + "; prefill page size " + pageSize
                    + ", kv dtype code " + dtype + " (" + mlaRow + " B rows, " + clientLayers + " layers)");
        }
        if (cp < 1 || cp > DecodeServer.MAX_PREFILL_CP) {
            throw new Refusal("E-PD-0", "prefill CP size " + cp + " outside [1, " + DecodeServer.MAX_PREFILL_CP + "]");
        }
        byte[] id = new byte[Frames.CLIENT_ID_BYTES];
        r.raw(id, 0, id.length);
        String chosen = r.remaining() > 0 ? r.str() : Frames.TCP;
        PageLanding landing = server.landing();
        if (!chosen.equals(Frames.TCP) && (landing == null || !landing.engine().equals(chosen))) {
            throw new Refusal("E-PD-ENGINE", "this decode server takes page bytes by " + Frames.TCP + (landing == null ? "" : " or " + landing.engine())
                    + ", not " + chosen);
        }
        join(java.util.HexFormat.of().formatHex(id));
        hello = true;
        givePendingSlotBack();
        layers = clientLayers;
        prefillCp = cp;
        engine = chosen;
        Frames.Writer ok = new Frames.Writer(Frames.HELLO_OK, 4).i32(1);
        if (landing != null && chosen.equals(landing.engine())) {
            byte[] description = landing.describe();
            ok.i32(description.length).raw(description, 0, description.length);
        }
        return ok.bytes();
    }

    /**
     * A PAGES frame read straight from Netty's buffer: its lengths are checked against the
     * frame and the request before anything is allocated, every page's CRC32C is checked on
     * the received bytes, then the receiver checks the positions, and only then are the bytes
     * copied, once, into the decode pages.
     */
    private byte[] pages(ByteBuf in) {
        in.order(ByteOrder.LITTLE_ENDIAN);
        String id = owned(requestId(in, "PAGES"));
        int rank = in.readIntLE();
        long dstStart = in.readLongLE();
        int length = in.readIntLE();
        int flag = in.readByte();
        KvLayout layout = receiver.layout();
        if (flag != (layout == null ? 0 : 1)) { // pages with no bytes would read as written
            throw new Refusal("E-PD-0", "malformed PAGES frame: data flag " + flag + "; this decode side takes " + (layout == null ? "0 (pages only)" : "1 (with bytes)"));
        }
        boolean hasData = flag == 1;
        int[] crcs = checksums(in, "PAGES", id, length);
        long[] dst = run(dstStart, length);
        long dataBytes = !hasData || layout == null ? 0
                : (long) layers * length * (layout.mlaPageBytes(receiver.pageSize()) + layout.indexPageBytes(receiver.pageSize()));
        if (in.readableBytes() != dataBytes) {
            throw new Refusal("E-PD-0", "malformed PAGES frame: " + in.readableBytes() + " data bytes for " + length
                    + " pages; the layout takes " + dataBytes);
        }
        if (dataBytes == 0) {
            receiver.accept(id, rank, dst, null);
            return Frames.ack();
        }
        int mlaPage = (int) layout.mlaPageBytes(receiver.pageSize());
        int indexPage = (int) layout.indexPageBytes(receiver.pageSize());
        int mlaStart = in.readerIndex();
        int indexStart = mlaStart + layers * length * mlaPage;
        for (int k = 0; k < length; k++) {
            int crc = Frames.pageCrc(in, mlaStart, indexStart, layers, length, k, mlaPage, indexPage);
            if (crc != crcs[k]) {
                server.rejectedPages.addAndGet(length);
                throw new Refusal("E-PD-CRC", "request " + id + ": page " + dst[k] + " arrived with crc32c "
                        + Integer.toHexString(crc) + ", sent as " + Integer.toHexString(crcs[k]));
            }
        }
        receiver.accept(id, rank, dst, (store, pages) -> {
            for (int l = 0; l < layers; l++) {
                for (int k = 0; k < length; k++) {
                    store.writePage(l, KvComponent.MLA, pages[k], in.nioBuffer(mlaStart + (l * length + k) * mlaPage, mlaPage));
                    store.writePage(l, KvComponent.INDEX, pages[k], in.nioBuffer(indexStart + (l * length + k) * indexPage, indexPage));
                }
            }
        });
        return Frames.ack();
    }

    /**
     * A PLACED frame: the connection's engine wrote the run's pages into the decode pool. Its
     * lengths are checked as a PAGES frame's; the receiver checks the positions; then each page's
     * CRC32C is computed on the pool's bytes, and only if every one matches do the pages count as
     * written. A mismatch refuses the run (E-PD-CRC), counted, and leaves its positions unwritten.
     */
    private byte[] placed(ByteBuf in) {
        in.order(ByteOrder.LITTLE_ENDIAN);
        String id = owned(requestId(in, "PLACED"));
        if (engine.equals(Frames.TCP)) {
            throw new Refusal("E-PD-0", "PLACED for request " + id + " on a connection whose HELLO chose tcp: its page bytes come in PAGES frames");
        }
        int rank = in.readIntLE();
        long dstStart = in.readLongLE();
        int length = in.readIntLE();
        int[] crcs = checksums(in, "PLACED", id, length);
        if (in.readableBytes() != 0) {
            throw new Refusal("E-PD-0", "malformed PLACED frame: " + in.readableBytes() + " bytes after its " + length + " checksums");
        }
        long[] dst = run(dstStart, length);
        receiver.accept(id, rank, dst, (store, pages) -> {
            int[] landed = PageCrcs.of(store, pages);
            for (int k = 0; k < length; k++) {
                if (landed[k] != crcs[k]) {
                    server.rejectedPages.addAndGet(length);
                    throw new Refusal("E-PD-CRC", "request " + id + ": page " + pages[k] + " landed with crc32c " + Integer.toHexString(landed[k])
                            + ", placed as " + Integer.toHexString(crcs[k]));
                }
            }
        });
        return Frames.ack();
    }

    /** The request id a PAGES or PLACED frame starts with, its length checked against the frame first. */
    private static String requestId(ByteBuf in, String frame) {
        int idLength = in.readIntLE();
        if (idLength < 0 || idLength > DecodeServer.MAX_ID_BYTES || idLength > in.readableBytes()) {
            throw new Refusal("E-PD-0", "malformed " + frame + " frame: a request id of " + idLength + " bytes (at most " + DecodeServer.MAX_ID_BYTES
                    + ", " + in.readableBytes() + " left in the frame)");
        }
        byte[] idBytes = new byte[idLength];
        in.readBytes(idBytes);
        return new String(idBytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A run's per-page checksums, its length checked against the request (or the pool) and the frame first. */
    private int[] checksums(ByteBuf in, String frame, String id, int length) {
        int bound = receiver.pageCount(id) > 0 ? receiver.pageCount(id) : receiver.capacityPages();
        if (length < 1 || length > bound || 4L * length > in.readableBytes()) {
            throw new Refusal("E-PD-0", "malformed " + frame + " frame: a run of " + length + " pages (request " + id + " may name at most "
                    + bound + ", " + in.readableBytes() / 4 + " checksums fit the frame)");
        }
        int[] crcs = new int[length];
        for (int i = 0; i < length; i++) {
            crcs[i] = in.readIntLE();
        }
        return crcs;
    }

    private static long[] run(long dstStart, int length) {
        long[] dst = new long[length];
        for (int k = 0; k < length; k++) {
            dst[k] = dstStart + k;
        }
        return dst;
    }
}

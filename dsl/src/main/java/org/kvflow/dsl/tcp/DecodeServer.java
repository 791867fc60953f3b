package org.kvflow.dsl.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.gather.KvPageStore;
import org.kvflow.operators.transfer.DecodeReceiver;
import org.kvflow.operators.transfer.TransferRejectedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/**
 * The decode instance's TCP endpoint (non-CP, full layout, SPEC §8.1): answers the kvflow PD
 * protocol ({@link Frames}) for a {@link DecodeReceiver}. It refuses a prefill of another page
 * size or row layout at the handshake (E-PD-4), checks every page's CRC32C, and rejects (and
 * counts) pages for unknown requests or positions without writing them.
 */
public final class DecodeServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeServer.class);

    private final DecodeReceiver receiver;
    private final DisposableServer server;
    private final AtomicLong rejectedPages = new AtomicLong();

    private DecodeServer(DecodeReceiver receiver, String host, int port) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        this.server = TcpServer.create().host(host).port(port)
                .doOnConnection(c -> c.addHandlerLast(new LengthFieldBasedFrameDecoder(ByteOrder.LITTLE_ENDIAN,
                        Frames.MAX_FRAME + 16, 0, 4, 0, 4, true)))
                .handle((in, out) -> {
                    Session session = new Session();
                    return out.sendByteArray(in.receive().map(session::answer)
                            .doOnError(e -> LOG.error("decode server connection failed", e)));
                })
                .bindNow();
    }

    /** Starts a server on {@code host:port} ({@code 0}: any free port). */
    public static DecodeServer start(DecodeReceiver receiver, String host, int port) {
        return new DecodeServer(receiver, host, port);
    }

    public int port() {
        return server.port();
    }

    public DecodeReceiver receiver() {
        return receiver;
    }

    /** Pages refused so far (unknown request or position, checksum mismatch), never written. */
    public long rejectedPages() {
        return rejectedPages.get() + receiver.rejectedPages();
    }

    @Override
    public void close() {
        server.disposeNow();
    }

    /** One connection: the handshake state. */
    private final class Session {
        private boolean hello;
        private int layers;

        byte[] answer(ByteBuf frame) {
            byte type = frame.getByte(frame.readerIndex());
            if (type == Frames.PAGES && hello) {
                try {
                    return pages(frame.skipBytes(1));
                } catch (TransferRejectedException e) {
                    return Frames.reject("E-PD-PAGE", e.getMessage());
                } catch (RuntimeException e) {
                    LOG.warn("decode server refused a PAGES frame: {}", e.toString());
                    return Frames.reject("E-PD-0", e.getClass().getSimpleName() + ": " + e.getMessage());
                }
            }
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            Frames.Reader r = new Frames.Reader(bytes);
            try {
                r.skipType();
                if (!hello && type != Frames.HELLO) {
                    return Frames.reject("E-PD-0", "handshake first");
                }
                return switch (type) {
                    case Frames.HELLO -> hello(r);
                    case Frames.OPEN -> {
                        String id = r.str();
                        long[] pages = receiver.open(id, r.i32(), r.i32());
                        Frames.Writer w = new Frames.Writer(Frames.OPENED, 4 + 8 * pages.length).i32(pages.length);
                        for (long p : pages) {
                            w.i64(p);
                        }
                        yield w.bytes();
                    }
                    case Frames.COMPLETE -> {
                        receiver.complete(r.str(), r.i32());
                        yield Frames.ack();
                    }
                    case Frames.ABORT -> {
                        receiver.release(r.str());
                        yield Frames.ack();
                    }
                    case Frames.DIGEST -> {
                        String id = r.str();
                        long seqLen = r.i64();
                        yield new Frames.Writer(Frames.DIGESTED, 13).i64(receiver.digest(id, seqLen)).i32(receiver.writtenPages(id))
                                .u8(receiver.isReady(id) ? 1 : 0).bytes();
                    }
                    case Frames.STATS -> new Frames.Writer(Frames.STATISTICS, 12).i64(rejectedPages()).i32(receiver.openSessions()).bytes();
                    default -> Frames.reject("E-PD-0", "unknown frame type " + type);
                };
            } catch (TransferRejectedException e) {
                return Frames.reject("E-PD-PAGE", e.getMessage());
            } catch (RuntimeException e) {
                LOG.warn("decode server refused a frame: {}", e.toString());
                return Frames.reject("E-PD-0", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }

        private byte[] hello(Frames.Reader r) {
            if (r.i32() != Frames.MAGIC) {
                return Frames.reject("E-PD-0", "not a kvflow PD client");
            }
            int pageSize = r.i32();
            int dtype = r.u8();
            int clientLayers = r.i32();
            int mlaRow = r.i32();
            int indexRow = r.i32();
            r.i32(); // prefill cp: any
            KvLayout layout = receiver.layout();
            String mine = "decode page size " + receiver.pageSize() + (layout == null ? ", pages only"
                    : ", kv " + layout.dtype().wireName() + " (" + layout.mlaRowBytes() + " B rows, " + layout.shape().layers() + " layers)");
            boolean layoutMatches = layout == null ? mlaRow == 0
                    : layout.dtype().ordinal() == dtype && layout.mlaRowBytes() == mlaRow && layout.indexRowBytes() == indexRow
                    && layout.shape().layers() == clientLayers;
            if (pageSize != receiver.pageSize() || !layoutMatches) {
                return Frames.reject("E-PD-4", "page size / kv dtype mismatch: " + mine + "; prefill page size " + pageSize
                        + ", kv dtype code " + dtype + " (" + mlaRow + " B rows, " + clientLayers + " layers)");
            }
            hello = true;
            layers = clientLayers;
            return new Frames.Writer(Frames.HELLO_OK, 4).i32(1).bytes();
        }

        /**
         * A PAGES frame read straight from Netty's buffer: every page's CRC32C is checked on the
         * received bytes first, then the receiver checks the positions, and only then are the bytes
         * copied, once, into the decode pages.
         */
        private byte[] pages(ByteBuf in) {
            in.order(ByteOrder.LITTLE_ENDIAN);
            byte[] idBytes = new byte[in.readIntLE()];
            in.readBytes(idBytes);
            String id = new String(idBytes, java.nio.charset.StandardCharsets.UTF_8);
            int rank = in.readIntLE();
            long dstStart = in.readLongLE();
            int length = in.readIntLE();
            boolean hasData = in.readByte() == 1;
            int[] crcs = new int[length];
            for (int i = 0; i < length; i++) {
                crcs[i] = in.readIntLE();
            }
            long[] dst = new long[length];
            for (int k = 0; k < length; k++) {
                dst[k] = dstStart + k;
            }
            if (!hasData) {
                receiver.accept(id, rank, dst, null);
                return Frames.ack();
            }
            KvLayout layout = Objects.requireNonNull(receiver.layout(), "layout checked at hello");
            int mlaPage = (int) layout.mlaPageBytes(receiver.pageSize());
            int indexPage = (int) layout.indexPageBytes(receiver.pageSize());
            int mlaStart = in.readerIndex();
            int indexStart = mlaStart + layers * length * mlaPage;
            for (int k = 0; k < length; k++) {
                CRC32C crc = new CRC32C();
                for (int l = 0; l < layers; l++) {
                    crc.update(in.nioBuffer(mlaStart + (l * length + k) * mlaPage, mlaPage));
                }
                for (int l = 0; l < layers; l++) {
                    crc.update(in.nioBuffer(indexStart + (l * length + k) * indexPage, indexPage));
                }
                if ((int) crc.getValue() != crcs[k]) {
                    rejectedPages.addAndGet(length);
                    return Frames.reject("E-PD-CRC", "request " + id + ": page " + dst[k] + " arrived with crc32c "
                            + Integer.toHexString((int) crc.getValue()) + ", sent as " + Integer.toHexString(crcs[k]));
                }
            }
            receiver.accept(id, rank, dst, (store, pages) -> {
                for (int l = 0; l < layers; l++) {
                    for (int k = 0; k < length; k++) {
                        in.getBytes(mlaStart + (l * length + k) * mlaPage, store.mla(l), Math.toIntExact(pages[k] * mlaPage), mlaPage);
                        in.getBytes(indexStart + (l * length + k) * indexPage, store.index(l), Math.toIntExact(pages[k] * indexPage), indexPage);
                    }
                }
            });
            return Frames.ack();
        }
    }

    /** CRC32C of page {@code k} of a store: every layer's MLA page, then every layer's indexer page. */
    static int pageCrc(@Nullable KvPageStore store, int k) {
        if (store == null) {
            return 0;
        }
        CRC32C crc = new CRC32C();
        for (int l = 0; l < store.layers(); l++) {
            crc.update(store.mla(l), k * store.mlaPageBytes(), store.mlaPageBytes());
        }
        for (int l = 0; l < store.layers(); l++) {
            crc.update(store.index(l), k * store.indexPageBytes(), store.indexPageBytes());
        }
        return (int) crc.getValue();
    }
}

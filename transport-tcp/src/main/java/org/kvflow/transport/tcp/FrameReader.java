package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import org.jspecify.annotations.Nullable;

/**
 * Splits a connection's bytes into frames (a little-endian {@code int} length, then that many
 * bytes; the length is stripped). Each frame is read into one pooled buffer allocated at its exact
 * size as soon as its length is known, so nothing is re-copied as a frame grows, which a cumulating
 * decoder does for frames of megabytes. A length beyond {@code maxFrame} or below 0 fails the
 * connection before anything is allocated.
 *
 * <p>Bytes that arrive in the channel's own read buffers are copied into the frame once. With
 * {@link #readInPlace(Channel)}, the channel's reads go further: while a frame is open, each read
 * is handed the frame's unfilled rest (up to {@value #READ_IN_PLACE_BYTES} bytes), so the kernel
 * copies the bytes straight into it and only the few bytes read together with a frame's length are
 * copied here.
 */
final class FrameReader extends ChannelInboundHandlerAdapter {
    /** What a read asks the kernel for when no frame is open: the frame's length and the start of its bytes. */
    private static final int HEADER_READ_BYTES = 64 << 10;

    /**
     * The most of a frame one read is handed. Reads of at most 1 MiB moved more than reads of
     * the frame's whole rest or of 256 KiB (docs/benchmarks.md, D28): a larger read holds the socket longer while the sender waits for room.
     */
    private static final int READ_IN_PLACE_BYTES = 1 << 20;
    private final int maxFrame;
    private final byte[] header = new byte[Integer.BYTES];
    private int headerRead;
    private @Nullable ByteBuf frame;
    /** The frame's rest as last handed to a read ({@link #readInPlace}), until that read arrives. */
    private @Nullable ByteBuf lent;

    FrameReader(int maxFrame) {
        this.maxFrame = maxFrame;
    }

    /**
     * Makes {@code channel}'s reads fill the open frame in place. Only for a channel whose reads
     * reach this reader unchanged (no TLS or other decoder before it: a decoder that kept the lent
     * buffer would write into the frame); call it before the channel's first read.
     */
    void readInPlace(Channel channel) {
        // one read per turn of the event loop (this allocator's default, where Netty's own reads up to 16 small buffers):
        // a read here is up to a MiB, and this is the setting docs/benchmarks.md measured
        channel.config().setRecvByteBufAllocator(new DefaultMaxMessagesRecvByteBufAllocator() {
            @Override
            public Handle newHandle() {
                return new MaxMessageHandle() {
                    @Override
                    public ByteBuf allocate(ByteBufAllocator alloc) {
                        return canLend() ? lendRest() : alloc.ioBuffer(HEADER_READ_BYTES);
                    }

                    @Override
                    public int guess() {
                        return nextReadBytes();
                    }
                };
            }
        });
    }

    /** Whether the next read can land in the open frame: one is open, not yet full, and its memory has an address the kernel can fill. */
    private boolean canLend() {
        return frame != null && frame.isWritable() && frame.hasMemoryAddress();
    }

    /** Bytes the next read asks for: the open frame's rest up to {@value #READ_IN_PLACE_BYTES}, or a buffer of {@value #HEADER_READ_BYTES}. */
    private int nextReadBytes() {
        return canLend() ? Math.min(READ_IN_PLACE_BYTES, frame.writableBytes()) : HEADER_READ_BYTES;
    }

    /** The next read's share of the open frame's rest, as an empty buffer over the frame's own memory (retained); only when {@link #canLend}. */
    private ByteBuf lendRest() {
        lent = frame.retainedSlice(frame.writerIndex(), nextReadBytes()).clear();
        return lent;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (in == lent) { // the read filled the frame's own memory: only the frame's fill mark moves
                lent = null;
                frame.writerIndex(frame.writerIndex() + in.readableBytes());
                deliverIfFull(ctx);
                return;
            }
            while (in.isReadable()) {
                if (frame == null) {
                    int n = Math.min(Integer.BYTES - headerRead, in.readableBytes());
                    in.readBytes(header, headerRead, n);
                    headerRead += n;
                    if (headerRead < Integer.BYTES) {
                        return;
                    }
                    headerRead = 0;
                    int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0xFF) << 16 | header[3] << 24;
                    if (length < 0) {
                        throw new CorruptedFrameException("frame length " + length + " is negative");
                    }
                    if (length > maxFrame) {
                        throw new TooLongFrameException("frame length " + length + " exceeds " + maxFrame);
                    }
                    // (an empty frame as a real buffer: the shared empty one is not delivered downstream)
                    frame = ctx.alloc().ioBuffer(length, Math.max(length, 1));
                }
                frame.writeBytes(in, Math.min(frame.writableBytes(), in.readableBytes()));
                deliverIfFull(ctx);
            }
        } finally {
            in.release();
        }
    }

    private void deliverIfFull(ChannelHandlerContext ctx) {
        if (!frame.isWritable()) {
            ByteBuf done = frame;
            frame = null;
            ctx.fireChannelRead(done);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}

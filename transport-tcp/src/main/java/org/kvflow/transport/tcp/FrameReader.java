package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;

/**
 * Splits a connection's bytes into frames (a little-endian {@code int} length, then that many
 * bytes; the length is stripped). Each frame is read into one pooled buffer allocated at its exact
 * size as soon as its length is known, so every byte is copied once and nothing is re-copied as a
 * frame grows, which a cumulating decoder does for frames of megabytes. A length beyond
 * {@code maxFrame} or below 0 fails the connection before anything is allocated.
 */
final class FrameReader extends ChannelInboundHandlerAdapter {
    private final int maxFrame;
    private final byte[] header = new byte[Integer.BYTES];
    private int headerRead;
    private ByteBuf frame;

    FrameReader(int maxFrame) {
        this.maxFrame = maxFrame;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
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
                    frame = ctx.alloc().buffer(length, Math.max(length, 1));
                }
                frame.writeBytes(in, Math.min(frame.writableBytes(), in.readableBytes()));
                if (!frame.isWritable()) {
                    ByteBuf done = frame;
                    frame = null;
                    ctx.fireChannelRead(done);
                }
            }
        } finally {
            in.release();
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

package org.kvflow.ranks;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Splits a rank's control connection into frames ({@code length (i32) ‖ frame}), holding a peer
 * that has not yet shown the coordinator's token to small frames: until {@link #open()}, a frame
 * longer than {@link #BEFORE_TOKEN} closes the connection before any of it is buffered, so a
 * stranger on the host cannot make the rank hold {@link ControlFrame#MAX_FRAME} bytes per
 * connection. After it, frames up to {@link ControlFrame#MAX_FRAME} pass (staged copies).
 */
final class FrameSplitter extends ByteToMessageDecoder {
    /** The longest frame before the token: a JSON request, never a staged copy. */
    static final int BEFORE_TOKEN = 64 << 10;

    private volatile int limit = BEFORE_TOKEN;

    /** The peer showed the token: frames up to the full size pass from now on. */
    void open() {
        limit = ControlFrame.MAX_FRAME;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws TooLongFrameException {
        if (in.readableBytes() < 4) {
            return;
        }
        int length = in.getInt(in.readerIndex());
        if (length < 1 || length > limit) {
            in.skipBytes(in.readableBytes());
            ctx.close();
            throw new TooLongFrameException("a frame of " + length + " bytes; at most " + limit + (limit == BEFORE_TOKEN ? " before the token" : ""));
        }
        if (in.readableBytes() < 4 + length) {
            return;
        }
        in.skipBytes(4);
        out.add(in.readRetainedSlice(length));
    }
}

package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Frames come out whole however the bytes arrive, each in a buffer of its exact size; bad lengths fail before allocating. */
class FrameReaderTest {
    private static byte[] frames(byte[]... bodies) {
        int size = 0;
        for (byte[] b : bodies) {
            size += 4 + b.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        for (byte[] b : bodies) {
            out.putInt(b.length).put(b);
        }
        return out.array();
    }

    private static byte[] body(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    private static byte[] read(EmbeddedChannel ch) {
        ByteBuf f = ch.readInbound();
        assertThat(f).isNotNull();
        try {
            assertThat(f.capacity()).as("allocated at the frame's size").isEqualTo(f.readableBytes());
            byte[] b = new byte[f.readableBytes()];
            f.readBytes(b);
            return b;
        } finally {
            f.release();
        }
    }

    @Test
    void framesSplitAnywhereAndPackedTogetherComeOutWhole() {
        byte[] a = body(100_000, 1);
        byte[] b = body(3, 2);
        byte[] empty = new byte[0];
        byte[] wire = frames(a, b, empty, b);
        EmbeddedChannel ch = new EmbeddedChannel(new FrameReader(1 << 20));
        // 1-byte, then 2-byte (splitting the second header), then the rest at once
        int[] cuts = {1, 3, 50_000, wire.length};
        int from = 0;
        for (int cut : cuts) {
            ch.writeInbound(Unpooled.wrappedBuffer(wire, from, cut - from));
            from = cut;
        }
        assertThat(read(ch)).isEqualTo(a);
        assertThat(read(ch)).isEqualTo(b);
        assertThat(read(ch)).isEmpty();
        assertThat(read(ch)).isEqualTo(b);
        assertThat((Object) ch.readInbound()).isNull();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void lengthsBeyondTheLimitOrNegativeFailTheConnection() {
        EmbeddedChannel tooLong = new EmbeddedChannel(new FrameReader(1024));
        assertThatThrownBy(() -> tooLong.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 4, 0, 0})))
                .isInstanceOf(TooLongFrameException.class).hasMessage("frame length 1025 exceeds 1024");
        EmbeddedChannel negative = new EmbeddedChannel(new FrameReader(1024));
        assertThatThrownBy(() -> negative.writeInbound(Unpooled.wrappedBuffer(new byte[] {-1, -1, -1, -1})))
                .isInstanceOf(CorruptedFrameException.class).hasMessage("frame length -1 is negative");
    }

    @Test
    void aFrameCutOffByTheConnectionClosingIsReleased() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameReader(1024));
        RecordingAllocator recording = new RecordingAllocator();
        java.util.List<ByteBuf> allocated = recording.buffers;
        ch.config().setAllocator(recording);
        ch.writeInbound(Unpooled.wrappedBuffer(frames(body(500, 3)), 0, 100));
        assertThat((Object) ch.readInbound()).isNull();
        assertThat(allocated).hasSize(1).allSatisfy(b -> assertThat(b.refCnt()).isEqualTo(1));
        ch.pipeline().removeFirst(); // what closing the channel does to its handlers
        assertThat(allocated.getFirst().refCnt()).as("the partial frame's buffer is released").isZero();
        assertThat(ch.finish()).isFalse();
    }
    @Test
    void withReadsInPlaceTheKernelFillsTheOpenFrameAndOnlyLengthReadsAreCopied() throws Exception {
        int frames = 6;
        int size = 4 << 20;
        long inPlace = bytesAllocatedToRead(frames, size, true);
        long copied = bytesAllocatedToRead(frames, size, false);
        long payload = (long) frames * size;
        // in place: the frames themselves and one 64 KiB read per frame boundary; copied: every byte read into a buffer of its own first
        assertThat(inPlace).as("bytes allocated with reads in place").isLessThan(payload + payload / 10);
        assertThat(copied).as("bytes allocated with reads copied").isGreaterThan(2 * payload - payload / 10);
    }

    /**
     * Sends {@code frames} frames of random bytes over loopback to a server whose connection reads
     * them with a {@link FrameReader} (its reads in place or not); checks each frame arrives whole
     * and returns the bytes the connection had allocated once the last one arrived (the event loop
     * goes on reading, so the count is an atomic one, taken then).
     */
    private static long bytesAllocatedToRead(int frames, int size, boolean inPlace) throws Exception {
        RecordingAllocator recording = new RecordingAllocator();
        java.util.concurrent.BlockingQueue<Long> received = new java.util.concurrent.LinkedBlockingQueue<>();
        reactor.netty.DisposableServer server = reactor.netty.tcp.TcpServer.create().host("127.0.0.1").port(0)
                .doOnConnection(c -> {
                    c.channel().config().setAllocator(recording);
                    FrameReader reader = new FrameReader(size);
                    c.addHandlerLast(reader);
                    if (inPlace) {
                        reader.readInPlace(c.channel());
                    }
                })
                .handle((in, out) -> in.receive().map(FrameReaderTest::crc).doOnNext(received::add).then())
                .bindNow();
        long allocated;
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(frames);
            long[] sent = new long[frames];
            var out = socket.getOutputStream();
            for (int f = 0; f < frames; f++) {
                byte[] body = new byte[size];
                random.nextBytes(body);
                sent[f] = crc(Unpooled.wrappedBuffer(body));
                out.write(frames(body));
            }
            out.flush();
            for (int f = 0; f < frames; f++) {
                assertThat(received.poll(10, java.util.concurrent.TimeUnit.SECONDS)).as("frame %d", f).isEqualTo(sent[f]);
            }
            allocated = recording.bytes.get();
        } finally {
            server.disposeNow();
        }
        return allocated;
    }

    private static long crc(ByteBuf frame) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(frame.nioBuffer());
        return crc.getValue();
    }

    /** Unpooled buffers, each one kept to be looked at afterwards, and the bytes of all of them counted as they are allocated. */
    private static final class RecordingAllocator extends io.netty.buffer.AbstractByteBufAllocator {
        final java.util.List<ByteBuf> buffers = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();

        RecordingAllocator() {
            super(false);
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return kept(Unpooled.buffer(initialCapacity, maxCapacity));
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            return kept(Unpooled.directBuffer(initialCapacity, maxCapacity));
        }

        private ByteBuf kept(ByteBuf b) {
            buffers.add(b);
            bytes.addAndGet(b.capacity());
            return b;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }
}

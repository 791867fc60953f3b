package org.kvflow.transport.tcp;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.PageStore;
import reactor.core.publisher.Mono;

/**
 * A test engine for the PLACED path, both sides in this process: the prefill side writes a run's
 * pages straight into the decode receiver's store (as a one-sided put lands them) and reports
 * their CRC32C; a corrupting placer reports the first page's checksum off by one bit.
 */
final class InProcessPlacement implements PageLanding {
    static final String ENGINE = "in-process";
    private final DecodeReceiver receiver;

    InProcessPlacement(DecodeReceiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public String engine() {
        return ENGINE;
    }

    @Override
    public byte[] describe() {
        return ("pool of " + receiver.capacityPages() + " pages").getBytes(StandardCharsets.UTF_8);
    }

    /** The prefill side, writing into this landing's pool. */
    Placer placer(boolean corrupt) {
        return new Placer(receiver, corrupt);
    }

    /** The prefill side: what each lane was told at its handshake, and the runs placed. */
    static final class Placer implements PagePlacer {
        private final DecodeReceiver receiver;
        private final boolean corrupt;
        final List<String> described = new CopyOnWriteArrayList<>();
        /** Each run placed: {@code "lane: src first..last -> dst first"}. */
        final List<String> placed = new CopyOnWriteArrayList<>();
        volatile boolean closed;

        Placer(DecodeReceiver receiver, boolean corrupt) {
            this.receiver = receiver;
            this.corrupt = corrupt;
        }

        @Override
        public String engine() {
            return ENGINE;
        }

        @Override
        public void connected(int lane, byte[] decodeSide) {
            described.add(lane + ": " + new String(decodeSide, StandardCharsets.UTF_8));
        }

        @Override
        public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
            return Mono.fromCallable(() -> {
                placed.add(lane + ": src " + srcStart + ".." + (srcStart + length - 1) + " -> dst " + dstStart);
                long[] src = new long[length];
                long[] dst = new long[length];
                int[] crcs = new int[length];
                for (int i = 0; i < length; i++) {
                    src[i] = srcStart + i;
                    dst[i] = dstStart + i;
                    crcs[i] = PageCrcs.of(source, srcStart + i);
                }
                receiver.store().copyPagesFrom(source, src, dst);
                if (corrupt) {
                    crcs[0] ^= 1;
                }
                return crcs;
            });
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}

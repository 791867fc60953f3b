package org.kvflow.transport.tcp;

import org.kvflow.pages.PageStore;
import reactor.core.publisher.Mono;

/** A placer that hands every call to another: tests override {@link #place} to make an engine fail or report wrongly. */
public class ForwardingPlacer implements PagePlacer {
    private final PagePlacer inner;

    public ForwardingPlacer(PagePlacer inner) {
        this.inner = inner;
    }

    @Override
    public String engine() {
        return inner.engine();
    }

    @Override
    public void connected(int lane, byte[] decodeSide) {
        inner.connected(lane, decodeSide);
    }

    @Override
    public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
        return inner.place(lane, source, srcStart, dstStart, length);
    }

    @Override
    public void close() {
        inner.close();
    }
}

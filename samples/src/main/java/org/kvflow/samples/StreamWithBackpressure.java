package org.kvflow.samples;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.ModelKind;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.Split;
import org.kvflow.operators.PrefillRequest;
import reactor.core.publisher.Flux;

/**
 * Sample: an endless request source through a small pool. The consumer takes results slowly; the
 * source is asked only for what the admission queue holds, so memory stays bounded.
 */
public final class StreamWithBackpressure {
    private StreamWithBackpressure() {}

    public static void main(String[] args) {
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder()
                .cpSize(8).pageSize(64).model(ModelKind.TOY_MLA).sharedKv(true).bsGt1(true).build();
        PrefillPipeline pipeline = KvFlow.prefill(config)
                .admit(Admission.batchGate().queueCapacity(16))
                .split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(32))
                .materialize(Materialize.fullView()) // no model: plan pages only
                .build();
        AtomicLong pulled = new AtomicLong();
        Flux<PrefillRequest> endless = Flux.generate(() -> 0, (i, sink) -> {
            sink.next(new PrefillRequest("r" + i, new int[64 + (i * 37) % 2000], 16));
            return i + 1;
        });
        endless.doOnNext(r -> pulled.incrementAndGet())
                .transform(pipeline)
                .delayElements(Duration.ofMillis(2)) // a slow consumer
                .take(500)
                .doOnComplete(() -> System.out.println("500 results; the source was asked for " + pulled.get() + " requests"))
                .blockLast();
    }
}

package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/** A subscriber that stops after one result leaves decode holding that request alone; every other one it started is aborted, and counted. */
class CancelledRunAbortsTest {
    @Test
    void aRunCancelledAfterOneResultAbortsEveryOtherDecodeSessionAndCountsThem() {
        DecodeReceiver receiver = new DecodeReceiver(1024, 16, DslTest.MODEL.layout());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        PrefillPipeline pipeline = DslTest.flow(receiver).metrics(registry).build();
        List<PrefillResult> first = Flux.fromIterable(DslTest.requests(8)).transform(pipeline).take(1).collectList().block(Duration.ofMinutes(1));
        assertThat(first).singleElement().isInstanceOf(PrefillResult.Completed.class);
        assertThat(receiver.openSessions()).as("decode holds the one request the subscriber saw").isEqualTo(1);
        assertThat(receiver.isReady(first.getFirst().request().id())).isTrue();
        double aborts = registry.find("kvflow.transfer.aborts").counters().stream().mapToDouble(c -> c.count()).sum();
        assertThat(aborts).as("the sessions the cancel ended").isPositive();
        assertThat(receiver.pagesInUse()).isEqualTo(receiver.pageCount(first.getFirst().request().id()));
    }
}

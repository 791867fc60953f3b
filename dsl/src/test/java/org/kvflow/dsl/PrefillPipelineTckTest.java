package org.kvflow.dsl;

import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.ModelKind;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import reactor.core.publisher.Flux;

/**
 * The Reactive Streams TCK against a built pipeline as a publisher: n requests in, exactly n
 * results out (TestNG, run by JUnit's TestNG engine). Page planning only, so it is fast.
 */
public class PrefillPipelineTckTest extends PublisherVerification<PrefillResult> {
    private static final CpSharedKvConfig CONFIG = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(16)
            .model(ModelKind.TOY_MLA).sharedKv(true).bsGt1(true).build();
    private final PrefillPipeline pipeline = KvFlow.prefill(CONFIG).admit(Admission.batchGate()).split(Split.inSeq())
            .own(Ownership.byPageId().pagesPerRank(256)).materialize(Materialize.fullView()).build();

    public PrefillPipelineTckTest() {
        super(new TestEnvironment(1000));
    }

    @Override
    public Publisher<PrefillResult> createPublisher(long elements) {
        return Flux.range(0, (int) elements).map(i -> new PrefillRequest("t" + i, new int[1 + i % 40], 4)).transform(pipeline);
    }

    @Override
    public Publisher<PrefillResult> createFailedPublisher() {
        return Flux.<PrefillRequest>error(new IllegalStateException("source failed")).transform(pipeline);
    }

    @Override
    public long maxElementsFromPublisher() {
        return 4096;
    }
}

package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.dsl.DslTest;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PipelineDefinitionException;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** A flow picks its transfer engine by name; one that is not on the class path is a problem of the definition, named. */
class TransferEngineFlowTest {
    @Test
    void theTcpEngineByNameTransfersAsTheTcpTargetDoes() {
        List<PrefillRequest> requests = DslTest.requests(5);
        DecodeReceiver receiver = new DecodeReceiver(1024, 16, DslTest.MODEL.layout());
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null)) {
            PrefillPipeline pipeline = DslTest.modelFlow().transfer(PdTransfer.engine("tcp", "127.0.0.1", server.port(), Duration.ofSeconds(10))).build();
            assertThat(pipeline.describe()).contains("127.0.0.1:" + server.port());
            StepVerifier.create(Flux.fromIterable(requests).transform(pipeline))
                    .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
            for (PrefillRequest r : requests) {
                assertThat(receiver.isReady(r.id())).as(r.id()).isTrue();
            }
        }
    }

    @Test
    void anEngineThatIsNotHereIsAProblemOfTheDefinition() {
        assertThatThrownBy(() -> DslTest.modelFlow().transfer(PdTransfer.engine("rdma", "127.0.0.1", 9, Duration.ofSeconds(1))).build())
                .isInstanceOf(PipelineDefinitionException.class)
                .hasMessageContaining("transfer: transfer engine rdma is unavailable: no engine of that name on the class path; found [tcp]");
    }
}

package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Handler;
import java.util.logging.LogManager;
import org.junit.jupiter.api.Test;
import org.slf4j.bridge.SLF4JBridgeHandler;

/** java.util.logging (Aparapi, System.Logger) ends in SLF4J: the bridge is the root logger's only handler, installed once. */
class LoggingTest {
    @Test
    void julGoesThroughSlf4jAlone() {
        Logging.routeToSlf4j();
        Logging.routeToSlf4j();
        Handler[] handlers = LogManager.getLogManager().getLogger("").getHandlers();
        assertThat(handlers).hasSize(1).allSatisfy(h -> assertThat(h).isInstanceOf(SLF4JBridgeHandler.class));
    }
}

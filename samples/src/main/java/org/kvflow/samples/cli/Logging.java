package org.kvflow.samples.cli;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sends every log through SLF4J: {@code java.util.logging} (Aparapi's logs and the JDK's
 * {@code System.Logger}, which kvflow's device selection uses) is bridged, so one configuration
 * (quiet below {@code warn} by default, see {@code jvm.args}) governs all of it.
 */
final class Logging {
    private Logging() {}

    /** Replaces the root {@code java.util.logging} handlers with the bridge to SLF4J; idempotent. */
    static void routeToSlf4j() {
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }
}

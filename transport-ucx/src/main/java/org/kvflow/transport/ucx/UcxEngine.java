package org.kvflow.transport.ucx;

import java.time.Duration;
import org.kvflow.core.Failures;
import org.kvflow.transfer.TransferEngine;
import org.kvflow.transfer.TransferEngineUnavailableException;
import org.kvflow.transfer.TransferFactory;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;

/**
 * The {@code ucx} engine, found by name: the tcp transport's handshake, requests and checks, with
 * the page bytes written by one-sided UCX puts (jucx) into the decode pool ({@link UcxTarget},
 * {@link UcxLanding}). Needs UCX's libraries ({@code libucp}) where it runs.
 */
public final class UcxEngine implements TransferEngine {
    /** The engine's name. */
    public static final String NAME = "ucx";

    @Override
    public String name() {
        return NAME;
    }

    /** Opens and closes a UCX context: jucx's native library and UCX's must load. */
    @Override
    public void check() {
        try {
            new UcpContext(new UcpParams().requestRmaFeature()).close();
        } catch (RuntimeException | LinkageError e) {
            throw new TransferEngineUnavailableException(NAME, Failures.brief(e));
        }
    }

    @Override
    public TransferFactory target(String host, int port, Duration timeout) {
        return UcxTarget.of(host, port).timeout(timeout);
    }
}

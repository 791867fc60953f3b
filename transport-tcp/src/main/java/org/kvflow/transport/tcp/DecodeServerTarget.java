package org.kvflow.transport.tcp;

import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.transfer.TransferFactory;

/**
 * A transfer to a decode server: every engine (tcp, ucx, cuda-ipc) speaks to it over its TCP
 * control connection, so each implements the config's {@code tcp} backend, and its description is
 * what its {@code toString} says (the engine, the address, what protects it).
 */
public interface DecodeServerTarget extends TransferFactory {
    /** {@return {@link TransferBackendKind#TCP}: the decode server's control connection} */
    @Override
    default TransferBackendKind kind() {
        return TransferBackendKind.TCP;
    }

    /** {@return the target's {@code toString}} */
    @Override
    default String target() {
        return toString();
    }
}

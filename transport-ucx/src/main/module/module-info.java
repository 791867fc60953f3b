/** The ucx PD transfer engine: one-sided UCX puts of page bytes into a registered decode pool. */
module org.kvflow.transport.ucx {
    requires transitive org.kvflow.transport.tcp;
    requires jucx;
    requires reactor.core;

    exports org.kvflow.transport.ucx;

    provides org.kvflow.transfer.TransferEngine with org.kvflow.transport.ucx.UcxEngine;
}

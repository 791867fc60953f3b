/** The tcp PD transfer backend and the decode server it talks to. */
module org.kvflow.transport.tcp {
    requires transitive org.kvflow.transfer;
    requires reactor.netty.core;
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.codec;
    requires org.reactivestreams;
    requires org.slf4j;
    requires java.naming;

    exports org.kvflow.transport.tcp;

    provides org.kvflow.transfer.TransferEngine with org.kvflow.transport.tcp.TcpEngine;
}

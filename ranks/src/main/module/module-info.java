/** CP ranks as processes: each rank's pool in a JVM of its own, opened in place or reached by staged copies. */
module org.kvflow.ranks {
    requires transitive org.kvflow.pages;
    requires reactor.netty.core;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires io.netty.codec;
    requires reactor.core;
    requires org.reactivestreams;
    requires com.fasterxml.jackson.databind;

    exports org.kvflow.ranks;

    provides org.kvflow.pages.RankPoolsProvider with org.kvflow.ranks.RankProcessProvider;
}

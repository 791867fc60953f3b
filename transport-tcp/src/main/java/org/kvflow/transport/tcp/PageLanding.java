package org.kvflow.transport.tcp;

/**
 * The decode side of an engine that writes page bytes straight into the decode pool
 * ({@link PagePlacer}): it has made the pool's memory writable by the engine and describes how
 * to reach it. A {@link DecodeServer} given a landing sends {@link #describe()} to every client
 * whose HELLO names {@link #engine()}, and takes PLACED frames from it: each page's CRC32C is
 * checked on the pool's bytes before the page counts. The landing's owner closes it after the
 * server.
 */
public interface PageLanding {
    /** {@return the engine's name, as clients name it in HELLO} */
    String engine();

    /** {@return what a client needs to write into the pool: the engine's address, each buffer's address, length and key} */
    byte[] describe();
}

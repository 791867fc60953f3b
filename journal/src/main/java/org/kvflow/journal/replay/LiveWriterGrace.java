package org.kvflow.journal.replay;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * How long replay waits for a live writer to finish creating a file before it calls what it sees
 * damage: Chronicle creates a cycle or table-store file, sizes it, then writes its header, and a
 * reader polling the directory can land in between. A truly damaged file costs one wait.
 */
final class LiveWriterGrace {
    static final long NANOS = 500_000_000L;

    private LiveWriterGrace() {}

    /** A look at a file: true once it is what a finished writer leaves. */
    interface Probe {
        boolean settled() throws IOException;
    }

    /** Polls {@code probe} every 5 ms until it settles or the grace ends. */
    static void await(Probe probe) throws IOException {
        long deadline = System.nanoTime() + NANOS;
        while (!probe.settled() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000L);
        }
    }
}

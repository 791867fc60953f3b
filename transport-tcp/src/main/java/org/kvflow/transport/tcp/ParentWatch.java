package org.kvflow.transport.tcp;

import java.util.concurrent.CompletableFuture;

/** Ties a child process's life to its parent's: for a decode server started by a prefill process, which must not outlive it. */
final class ParentWatch {
    private ParentWatch() {}

    /** Completes when process {@code pid} has exited (at once if there is no such process). */
    static CompletableFuture<Void> exitOf(long pid) {
        return ProcessHandle.of(pid).map(h -> h.onExit().<Void>thenApply(x -> null)).orElseGet(() -> CompletableFuture.completedFuture(null));
    }
}

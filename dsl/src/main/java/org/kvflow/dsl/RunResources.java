package org.kvflow.dsl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * What one run of a pipeline acquired (page memory, rank processes, the group's pools, the
 * transfer backend, the journal), held from the moment each is acquired so that every way the run
 * ends (completion, an error, a failure while it is assembled, a cancel) closes all of them, in
 * the reverse order of acquisition, once. Work the run hands over on its way out (the decode-side
 * aborts of a cancelled run) finishes before anything closes, so nothing is sent on a closed backend.
 */
final class RunResources {
    private static final Logger LOG = LoggerFactory.getLogger(RunResources.class);

    private final Deque<AutoCloseable> held = new ArrayDeque<>();
    private final List<Mono<Void>> before = new ArrayList<>();

    /**
     * Holds {@code resource} until the run ends (the run acquires everything while it is
     * assembled, before it can end).
     *
     * @return {@code resource}
     */
    synchronized <T extends AutoCloseable> T hold(T resource) {
        held.push(resource);
        return resource;
    }

    /** Work to finish before the first resource is closed; its errors are logged, not raised. */
    synchronized void finishFirst(Mono<Void> work) {
        before.add(work.onErrorResume(e -> {
            LOG.warn("work before closing the run failed: {}", e.toString());
            return Mono.empty();
        }));
    }

    /** Waits for the work handed over, then closes every resource, last acquired first; idempotent. */
    Mono<Void> close() {
        return Mono.defer(() -> {
            List<Mono<Void>> work;
            synchronized (this) {
                work = List.copyOf(before);
                before.clear();
            }
            return Mono.when(work);
        }).then(Mono.fromRunnable(this::closeNow));
    }

    private void closeNow() {
        List<AutoCloseable> order = new ArrayList<>();
        synchronized (this) {
            while (!held.isEmpty()) {
                order.add(held.pop());
            }
        }
        order.forEach(RunResources::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            LOG.warn("closing {} after the run failed: {}", resource, e.toString());
        }
    }
}

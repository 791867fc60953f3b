package org.kvflow.traffic;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.dsl.PromptProbe;
import org.kvflow.dsl.RunPools;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;

/**
 * One simulated prefill instance: a real pipeline (pages only) that stays up and takes one request
 * at a time, so its admission, ownership, prefix cache and eviction decide each request's hits in
 * the order the instance serves them, and a router can ask it what prefix it holds for a request.
 * {@link #close()} ends its run.
 */
final class PrefillInstance implements AutoCloseable {
    /** The longest one request may take through a pages-only pipeline before the simulation gives up on it. */
    private static final Duration PATIENCE = Duration.ofMinutes(1);

    private final Sinks.Many<PrefillRequest> requests = Sinks.many().unicast().onBackpressureBuffer();
    private final Map<String, CompletableFuture<PrefillResult>> waiting = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final PrefillRun run;
    private final Disposable subscription;

    PrefillInstance(PrefillPipeline pipeline) {
        run = Objects.requireNonNull(pipeline, "pipeline").start(requests.asFlux());
        subscription = run.results().subscribe(r -> {
            CompletableFuture<PrefillResult> f = waiting.remove(r.request().id());
            if (f != null) {
                f.complete(r);
            }
        }, e -> {
            waiting.values().forEach(f -> f.completeExceptionally(e));
            ended.completeExceptionally(e);
        }, () -> ended.complete(null));
    }

    /** Prefills {@code request} after every earlier one and returns its result. */
    PrefillResult prefill(PrefillRequest request) {
        CompletableFuture<PrefillResult> result = new CompletableFuture<>();
        waiting.put(request.id(), result);
        requests.emitNext(request, Sinks.EmitFailureHandler.FAIL_FAST);
        return await(result, "request " + request.id());
    }

    /** Tokens of the longest prefix this instance's device cache holds for a probed request now (0 before its first request). */
    int cachedPrefixTokens(PromptProbe probe) {
        RunPools pools = run.pools();
        return pools == null ? 0 : pools.cachedPrefixTokens(probe);
    }

    @Override
    public void close() {
        requests.emitComplete(Sinks.EmitFailureHandler.FAIL_FAST);
        try {
            await(ended, "the end of the instance's run");
        } finally {
            subscription.dispose();
        }
    }

    private static <T> T await(CompletableFuture<T> f, String what) {
        try {
            return f.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " took more than " + PATIENCE + " through a pages-only pipeline", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the instance's run failed while waiting for " + what + ": " + e.getCause(), e.getCause());
        }
    }
}

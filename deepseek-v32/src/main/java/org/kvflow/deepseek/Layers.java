package org.kvflow.deepseek;

import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * A run's per-layer device parts (key sides or attentions), each made on first use and all closed
 * with the run. Thread-safe: cancellation may close it from another thread while a layer computes.
 *
 * @param <P> the per-layer part
 */
final class Layers<P extends AutoCloseable> implements AutoCloseable {
    private final IntFunction<P> make;
    private final @Nullable Object[] parts;

    Layers(int layers, IntFunction<P> make) {
        this.make = make;
        this.parts = new Object[layers];
    }

    /** Layer {@code l}'s part, made now if it is the first use. */
    @SuppressWarnings("unchecked")
    synchronized P layer(int l) {
        Object part = parts[l];
        if (part == null) {
            part = make.apply(l);
            parts[l] = part;
        }
        return (P) part;
    }

    @Override
    public synchronized void close() {
        for (int l = 0; l < parts.length; l++) {
            Object part = parts[l];
            if (part != null) {
                parts[l] = null;
                try {
                    ((AutoCloseable) part).close();
                } catch (Exception e) {
                    throw new IllegalStateException("closing layer " + l + ": " + e.getMessage(), e);
                }
            }
        }
    }
}

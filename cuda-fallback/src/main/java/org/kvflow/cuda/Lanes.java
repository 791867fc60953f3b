package org.kvflow.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A bounded set of lanes (a page memory's checksum launches, each on a stream of its own), lent one
 * to a call so that several callers' calls reach the device side by side. At most {@code most} are
 * made, each when first needed; a call beyond them waits for one to come back. A call is counted
 * from {@link #begin()}, which its memory calls under its own lock once the call's buffers are
 * resolved, to the end of {@link #run}; the memory frees a buffer only after {@link #awaitIdle()},
 * under the same lock, so no lane's kernel reads or writes a freed buffer.
 *
 * @param <T> what a lane holds
 */
final class Lanes<T> implements AutoCloseable {
    private final int most;
    private final Supplier<T> make;
    private final Consumer<T> destroy;
    private final String owner;
    private final Deque<T> idle = new ArrayDeque<>();
    private final List<T> made = new ArrayList<>();
    private boolean closed;
    /** Calls begun and not yet ended. */
    private int running;

    /**
     * @param most    lanes at most
     * @param make    makes a lane (on the calling thread, when a call needs one and none is idle)
     * @param destroy gives a lane's resources back, at {@link #close()}
     * @param owner   what the lanes belong to, for the error after close
     */
    Lanes(int most, Supplier<T> make, Consumer<T> destroy, String owner) {
        this.most = most;
        this.make = make;
        this.destroy = destroy;
        this.owner = owner;
    }

    /** Counts a call that is about to {@link #run}: from now until it ends, {@link #awaitIdle()} waits for it. */
    synchronized void begin() {
        running++;
    }

    /**
     * Runs a begun {@code call} with a lane no other call uses meanwhile, and ends it whatever happens.
     *
     * @throws IllegalStateException if the lanes are closed, or the thread is interrupted while it waits for one
     */
    <R> R run(Function<T, R> call) {
        try {
            T lane = borrow();
            try {
                return call.apply(lane);
            } finally {
                giveBack(lane);
            }
        } finally {
            end();
        }
    }

    /** Waits until no begun call is running; an interrupt does not cut the wait short (a buffer is never freed under a kernel) but is kept. */
    synchronized void awaitIdle() {
        boolean interrupted = false;
        while (running > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Lanes made so far: how many calls have run at once, up to {@code most}. */
    synchronized int made() {
        return made.size();
    }

    private synchronized T borrow() {
        while (!closed && idle.isEmpty() && made.size() == most) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a lane of " + owner, e);
            }
        }
        if (closed) {
            throw new IllegalStateException(owner + " is closed");
        }
        if (!idle.isEmpty()) {
            return idle.pop();
        }
        T lane = make.get();
        made.add(lane);
        return lane;
    }

    private synchronized void giveBack(T lane) {
        idle.push(lane);
        notifyAll();
    }

    private synchronized void end() {
        running--;
        notifyAll();
    }

    /** Destroys every lane made; no call may be running (the memory waits with {@link #awaitIdle()} first). */
    @Override
    public synchronized void close() {
        closed = true;
        for (T lane : made) {
            destroy.accept(lane);
        }
        made.clear();
        idle.clear();
        notifyAll();
    }
}

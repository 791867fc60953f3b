package org.kvflow.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/**
 * The checksum launches of one page memory, each on a stream of its own, lent one to a call: the
 * checks of several callers (a decode server's connections, ranks that share one memory) reach the
 * device side by side, where one stream would take them one at a time and leave the device idle
 * while each caller stages its table and reads its checksums back. At most {@link #LANES} are made,
 * each when first needed; a call beyond them waits for one to come back. A call is counted from
 * {@link #begin()}, which its memory calls under its lock once the call's buffers are resolved, to
 * the end of {@link #run}; the memory frees a buffer only after {@link #awaitIdle()}, under the same
 * lock, so no kernel reads or writes a freed buffer.
 */
final class CrcLanes implements AutoCloseable {
    /** Lanes at most: a CP group's ranks. */
    static final int LANES = 8;

    private final CudaDevice device;
    private final LaunchClock clock;
    private final Deque<Lane> idle = new ArrayDeque<>();
    private final List<Lane> made = new ArrayList<>();
    private boolean closed;
    /** Calls begun and not yet ended. */
    private int running;

    private record Lane(CudaStream stream, CrcLaunches launches) {}

    CrcLanes(CudaDevice device, LaunchClock clock) {
        this.device = device;
        this.clock = clock;
    }

    /** Counts a call that is about to {@link #run}: from now until it ends, {@link #awaitIdle()} waits for it. */
    synchronized void begin() {
        running++;
    }

    /**
     * Runs a begun {@code call} with a lane's launches, which no other call uses meanwhile, and ends
     * it whatever happens.
     *
     * @throws IllegalStateException if the lanes are closed, or the thread is interrupted while it waits for one
     */
    <T> T run(Function<CrcLaunches, T> call) {
        try {
            Lane lane = borrow();
            try {
                return call.apply(lane.launches());
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

    /** Lanes made so far. */
    synchronized int made() {
        return made.size();
    }

    private synchronized Lane borrow() {
        while (!closed && idle.isEmpty() && made.size() == LANES) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a checksum lane", e);
            }
        }
        if (closed) {
            throw new IllegalStateException("the CUDA page memory is closed");
        }
        if (!idle.isEmpty()) {
            return idle.pop();
        }
        CudaStream stream = new CudaStream(clock);
        Lane lane = new Lane(stream, new CrcLaunches(device, stream));
        made.add(lane);
        return lane;
    }

    private synchronized void end() {
        running--;
        notifyAll();
    }

    private synchronized void giveBack(Lane lane) {
        idle.push(lane);
        notifyAll();
    }

    /** Destroys every lane's stream; the device's context must be current, and no call may be running. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Lane lane : made) {
            lane.stream().close();
        }
        made.clear();
        idle.clear();
        notifyAll();
    }
}

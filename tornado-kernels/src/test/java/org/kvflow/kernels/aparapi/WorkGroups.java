package org.kvflow.kernels.aparapi;

import com.aparapi.Kernel;
import com.aparapi.Range;
import com.aparapi.device.JavaDevice;
import com.aparapi.internal.kernel.IKernelBarrier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a twin's Java form as an OpenCL device runs its work-groups, for tests without a device:
 * one group at a time, each work-item on a virtual thread of its own, meeting at a barrier that
 * opens only when every work-item of the group has arrived; its local arrays are the kernel's
 * fields, shared by the group's clones. Aparapi's own Java thread pool is not used: its barrier
 * lets a work-item whose wait returns without a notify walk on, after which the group's work-items
 * wait at different barriers and the run never ends (a TopKTwinsTest run hung 20 minutes so).
 * A group that has not finished within {@link #GROUP_LIMIT_SECONDS} fails the test instead.
 */
final class WorkGroups {
    static final long GROUP_LIMIT_SECONDS = 60;

    private WorkGroups() {}

    /** A bound twin over its whole range ({@link AparapiTask#launchSize}) in all its passes. */
    static void run(AparapiTask task) {
        run(task, task.launchSize(), AparapiTask.LOCAL, task.passes());
    }

    /** Every pass, every group of {@code globalSize / localSize}, in order; nothing for an empty range, as a device skips it. */
    static void run(Kernel kernel, int globalSize, int localSize, int passes) {
        if (globalSize == 0) {
            return;
        }
        Range range = JavaDevice.THREAD_POOL.createRange(globalSize, localSize);
        for (int pass = 0; pass < passes; pass++) {
            for (int group = 0; group < globalSize / localSize; group++) {
                runGroup(kernel, range, pass, group, localSize);
            }
        }
    }

    private static void runGroup(Kernel kernel, Range range, int pass, int group, int localSize) {
        GroupBarrier barrier = new GroupBarrier(localSize);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> items = new ArrayList<>(localSize);
        for (int lid = 0; lid < localSize; lid++) {
            Kernel item = kernel.clone();
            Kernel.KernelState state = item.getKernelState();
            state.setRange(range);
            state.setPassId(pass);
            state.setGlobalId(0, group * localSize + lid);
            state.setLocalId(0, lid);
            state.setGroupId(0, group);
            state.setLocalBarrier(barrier);
            items.add(Thread.ofVirtual().start(() -> {
                try {
                    item.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    barrier.breakBarrier(t);
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GROUP_LIMIT_SECONDS);
        List<Integer> unfinished = new ArrayList<>();
        for (int lid = 0; lid < localSize; lid++) {
            try {
                long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                if (!items.get(lid).join(Duration.ofMillis(left))) {
                    unfinished.add(lid);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while pass " + pass + ", group " + group + " ran", e);
            }
        }
        if (!unfinished.isEmpty()) {
            items.forEach(Thread::interrupt);
            throw new AssertionError("pass " + pass + ", group " + group + ": work-items " + unfinished + " still ran after "
                    + GROUP_LIMIT_SECONDS + " s", failure.get());
        }
        if (failure.get() != null) {
            throw new AssertionError("pass " + pass + ", group " + group + " failed", failure.get());
        }
    }

    /** A group's barrier: {@link #block} returns once every work-item has called it, in each round. */
    private static final class GroupBarrier implements IKernelBarrier {
        private final CyclicBarrier barrier;

        GroupBarrier(int parties) {
            barrier = new CyclicBarrier(parties);
        }

        @Override
        public boolean block() {
            try {
                barrier.await();
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("a work-item was interrupted at a barrier", e);
            } catch (BrokenBarrierException e) {
                throw new IllegalStateException("another work-item of the group failed", e);
            }
        }

        @Override
        public boolean isReleasable() {
            return false;
        }

        @Override
        public void cancelBarrier() {
            barrier.reset();
        }

        @Override
        public void breakBarrier(Throwable cause) {
            barrier.reset();
        }
    }
}

package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The lanes' bookkeeping, with plain objects for lanes: bounded, lent one call at a time, waited for before a free, destroyed at close. */
class LanesTest {
    private final AtomicInteger made = new AtomicInteger();
    private final List<Integer> destroyed = new ArrayList<>();
    private final Lanes<Integer> lanes = new Lanes<>(3, made::incrementAndGet, destroyed::add, "the test memory");

    @Test
    void callsSideBySideGetLanesOfTheirOwnAndNoMoreThanTheBoundAreMade() throws Exception {
        int callers = 6;
        CountDownLatch inside = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger atOnce = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        java.util.Set<Integer> used = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<Integer>> calls = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                lanes.begin();
                calls.add(pool.submit(() -> lanes.run(lane -> {
                    most.accumulateAndGet(atOnce.incrementAndGet(), Math::max);
                    assertThat(used.add(lane)).as("lane %d lent to one call at a time", lane).isTrue();
                    inside.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    used.remove(lane);
                    atOnce.decrementAndGet();
                    return lane;
                })));
            }
            assertThat(inside.await(10, TimeUnit.SECONDS)).as("three calls inside at once").isTrue();
            Thread.sleep(50); // the other three wait for a lane
            assertThat(atOnce.get()).isEqualTo(3);
            release.countDown();
            for (Future<Integer> call : calls) {
                assertThat(call.get(10, TimeUnit.SECONDS)).isBetween(1, 3);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(most.get()).isEqualTo(3);
        assertThat(lanes.made()).isEqualTo(3);
        assertThat(made.get()).isEqualTo(3);
    }

    @Test
    void aFreeWaitsForEveryBegunCallEvenOneThatHasNoLaneYet() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        lanes.begin(); // begun under the memory's lock, not yet running
        Thread caller = new Thread(() -> lanes.run(lane -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return lane;
        }));
        CountDownLatch idle = new CountDownLatch(1);
        Thread freer = new Thread(() -> {
            lanes.awaitIdle();
            idle.countDown();
        });
        freer.start();
        assertThat(idle.await(100, TimeUnit.MILLISECONDS)).as("waits while a begun call has not yet run").isFalse();
        caller.start();
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(idle.await(100, TimeUnit.MILLISECONDS)).as("waits while the call runs").isFalse();
        release.countDown();
        assertThat(idle.await(10, TimeUnit.SECONDS)).as("goes on once it ended").isTrue();
        caller.join();
        freer.join();
    }

    @Test
    void aFailingCallEndsAndGivesItsLaneBack() {
        lanes.begin();
        assertThatThrownBy(() -> lanes.run(lane -> {
            throw new IllegalArgumentException("kernel failed on lane " + lane);
        })).isInstanceOf(IllegalArgumentException.class).hasMessage("kernel failed on lane 1");
        lanes.awaitIdle(); // returns: the failed call ended
        lanes.begin();
        int again = lanes.run(lane -> lane);
        assertThat(again).as("the same lane again, none made").isEqualTo(1);
        assertThat(lanes.made()).isEqualTo(1);
    }

    @Test
    void closeDestroysEveryLaneAndRefusesLaterCalls() {
        lanes.begin();
        lanes.run(lane -> lane);
        lanes.close();
        assertThat(destroyed).containsExactly(1);
        lanes.begin();
        assertThatThrownBy(() -> lanes.run(lane -> lane)).isInstanceOf(IllegalStateException.class).hasMessage("the test memory is closed");
        lanes.awaitIdle(); // the refused call ended too
    }
}

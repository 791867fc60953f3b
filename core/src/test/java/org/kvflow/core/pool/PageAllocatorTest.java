package org.kvflow.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.kvflow.core.Gen;
import org.kvflow.core.SeededProperty;

class PageAllocatorTest {
    @Test
    void freshAllocatorHandsOutAscendingIdsFromOne() {
        PageAllocator a = new PageAllocator("test", 8, 4);
        assertThat(a.allocate(3)).containsExactly(1, 2, 3);
        assertThat(a.availableTokens()).isEqualTo(4 * 4);
    }

    @Test
    void freedPagesGoToTheTailFifo() {
        PageAllocator a = new PageAllocator("test", 6, 1);
        a.allocate(3);
        a.free(2, 1);
        assertThat(a.allocate(4)).containsExactly(4, 5, 2, 1);
    }

    @Test
    void exhaustionTakesNothing() {
        PageAllocator a = new PageAllocator("test", 4, 2);
        assertThatThrownBy(() -> a.allocate(4))
                .isInstanceOf(PoolExhaustedException.class)
                .hasMessage("pool exhausted: requested 4 pages, 3 free");
        assertThat(a.freePages()).isEqualTo(3);
        assertThat(a.allocate(3)).containsExactly(1, 2, 3);
    }

    @Test
    void doubleFreeIsCaughtAndFreesNothing() {
        PageAllocator a = new PageAllocator("test", 8, 1);
        a.allocate(3);
        a.free(2);
        assertThatThrownBy(() -> a.free(1, 2))
                .isInstanceOf(DoubleFreeException.class)
                .hasMessage("test: page 2 is not in use (double free)");
        assertThat(a.isAllocated(1)).isTrue();
        assertThatThrownBy(() -> a.free(3, 3)).isInstanceOf(DoubleFreeException.class).hasMessage("test: page 3 is not in use (double free)");
        assertThat(a.isAllocated(3)).isTrue();
    }

    @Test
    void foreignPagesAreRejected() {
        PageAllocator a = new PageAllocator("test", 8, 1);
        a.allocate(1);
        assertThatThrownBy(() -> a.free(0))
                .isInstanceOf(ForeignPageException.class)
                .hasMessage("test: page 0 does not belong to this pool (valid ids 1..7)");
        assertThatThrownBy(() -> a.free(1, 8)).isInstanceOf(ForeignPageException.class)
                .hasMessage("test: page 8 does not belong to this pool (valid ids 1..7)");
        assertThatThrownBy(() -> a.allocate(-1)).isInstanceOf(IllegalArgumentException.class).hasMessage("count must be >= 0, was -1");
        assertThatThrownBy(() -> new PageAllocator("test", 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("totalPages must be >= 1, was 0");
        assertThat(a.leakCheck()).containsExactly(1);
    }

    @SeededProperty
    void randomAllocFreeReturnsToFull(long seed) {
        Gen gen = new Gen(seed);
        int totalPages = gen.intIn(1, 500);
        PageAllocator a = new PageAllocator("prop", totalPages, 16);
        SplittableRandom random = new SplittableRandom(gen.anyLong());
        List<int[]> held = new ArrayList<>();
        for (int step = 0; step < 200; step++) {
            if (random.nextBoolean() && a.freePages() > 0) {
                held.add(a.allocate(random.nextInt(a.freePages() + 1)));
            } else if (!held.isEmpty()) {
                a.free(held.remove(random.nextInt(held.size())));
            }
            int heldPages = held.stream().mapToInt(p -> p.length).sum();
            assertThat(a.allocatedPages()).isEqualTo(heldPages);
            assertThat(a.freePages() + heldPages).isEqualTo(totalPages - 1);
        }
        held.forEach(a::free);
        assertThat(a.leakCheck()).isEmpty();
        assertThat(a.freePages()).isEqualTo(a.usablePages());
    }
}

package org.kvflow.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Every guard and count of the pools at its boundary, and what each typed error carries. */
class PoolContractTest {
    @Test
    void aRankPoolTakesPagesZeroToItsSizeMinusOneAndCountsThem() {
        assertThatThrownBy(() -> new RankPool(-1, 4)).hasMessage("rank must be >= 0, was -1");
        assertThatThrownBy(() -> new RankPool(0, 0)).hasMessage("pagesPerRank must be >= 1, was 0");
        RankPool pool = new RankPool(2, 4);
        assertThat(pool.rank()).isEqualTo(2);
        assertThat(pool.pagesPerRank()).isEqualTo(4);
        pool.occupy(0);
        pool.occupy(3);
        assertThat(pool.isUsed(0)).isTrue();
        assertThat(pool.isUsed(3)).isTrue();
        assertThat(pool.isUsed(1)).isFalse();
        assertThat(pool.isUsed(4)).isFalse();
        assertThat(pool.isUsed(-1)).isFalse();
        assertThat(pool.usedPages()).isEqualTo(2);
        assertThatThrownBy(() -> pool.occupy(4)).isInstanceOf(ForeignPageException.class).hasMessage("rank 2: page 4 does not belong to this pool (valid ids 0..3)");
        assertThatThrownBy(() -> pool.occupy(-1)).isInstanceOf(ForeignPageException.class).hasMessage("rank 2: page -1 does not belong to this pool (valid ids 0..3)");
        assertThatThrownBy(() -> pool.release(4)).isInstanceOf(ForeignPageException.class).hasMessage("rank 2: page 4 does not belong to this pool (valid ids 0..3)");
        assertThatThrownBy(() -> pool.occupy(3)).hasMessage("rank 2: physical page 3 is already occupied");
        pool.release(3);
        assertThat(pool.isUsed(3)).isFalse();
        assertThat(pool.usedPages()).isEqualTo(1);
        assertThatThrownBy(() -> pool.release(3)).isInstanceOfSatisfying(DoubleFreeException.class, e -> assertThat(e.pageId()).isEqualTo(3));
    }

    @Test
    void anAllocatorSaysWhichPagesItHandedOutAndItsSizes() {
        PageAllocator a = new PageAllocator("t", 5, 16);
        assertThat(a.pageSize()).isEqualTo(16);
        assertThat(a.totalPages()).isEqualTo(5);
        int[] pages = a.allocate(4);
        for (int p : pages) {
            assertThat(a.isAllocated(p)).isTrue();
        }
        assertThat(a.isAllocated(0)).isFalse();
        assertThat(a.isAllocated(5)).isFalse();
        assertThat(a.isAllocated(-1)).isFalse();
        a.free(pages[3]);
        assertThat(a.isAllocated(pages[3])).isFalse();
        assertThatThrownBy(() -> a.free(5)).isInstanceOfSatisfying(ForeignPageException.class, e -> assertThat(e.pageId()).isEqualTo(5));
        assertThatThrownBy(() -> a.allocate(2)).isInstanceOfSatisfying(PoolExhaustedException.class, e -> {
            assertThat(e.requestedPages()).isEqualTo(2);
            assertThat(e.freePages()).isEqualTo(1);
        });
    }

    @Test
    void sharedPoolsPlaceEachPageOnItsOwnerAndFreeingClearsThePlacement() {
        KvPools pools = KvPools.shared(2, PoolCapacity.ofPages(4, 8));
        assertThat(pools.availableTokens()).isEqualTo(7 * 8);
        int[] pages = pools.allocate(3);
        assertThat(pools.allocatedPages()).isEqualTo(3);
        assertThat(pools.availableTokens()).isEqualTo(4 * 8);
        assertThat(pools.physicalPagesInUse()).isEqualTo(3);
        for (int p : pages) {
            assertThat(pools.rank(p % 2).isUsed(p / 2)).isTrue();
        }
        assertThat(pools.rank(0).usedPages() + pools.rank(1).usedPages()).as("one copy of each page").isEqualTo(3);
        assertThat(pools.leakCheck()).containsExactlyInAnyOrder(pages[0], pages[1], pages[2]);
        pools.free(pages[0]);
        assertThat(pools.rank(pages[0] % 2).isUsed(pages[0] / 2)).isFalse();
        assertThat(pools.physicalPagesInUse()).isEqualTo(2);
        assertThat(pools.peakPhysicalPages()).isEqualTo(3);
        KvPools replicated = KvPools.replicated(3, PoolCapacity.ofPages(4, 8));
        int[] r = replicated.allocate(2);
        assertThat(replicated.physicalPagesInUse()).isEqualTo(6);
        replicated.free(r[1]);
        for (int rank = 0; rank < 3; rank++) {
            assertThat(replicated.rank(rank).isUsed(r[1])).isFalse();
            assertThat(replicated.rank(rank).isUsed(r[0])).isTrue();
        }
        assertThat(replicated.physicalPagesInUse()).isEqualTo(3);
    }

    @Test
    void logicalPagesMustFitThirtyOneBitIdsAndCapacityNeedsAPage() {
        assertThat(KvPools.shared(3, PoolCapacity.ofPages(5, 4)).capacityTokens()).isEqualTo((3 * 5 - 1) * 4L);
        assertThatThrownBy(() -> KvPools.shared(2, PoolCapacity.ofPages(Integer.MAX_VALUE / 2 + 1, 1)))
                .hasMessage("2 x 1073741824 logical pages exceed the 31-bit page id space");
        assertThat(PoolCapacity.ofPages(3, 16).tokensPerRank()).isEqualTo(48);
        assertThatThrownBy(() -> PoolCapacity.ofPages(3, 16).logicalPages(PoolLayout.SHARED, 0)).hasMessage("cpSize must be >= 1, was 0");
        assertThat(PoolCapacity.ofPages(3, 16).logicalPages(PoolLayout.SHARED, 1)).isEqualTo(3);
        assertThatThrownBy(() -> PoolCapacity.ofPages(1, 0)).hasMessage("pageSize must be >= 1, was 0");
        assertThat(PoolCapacity.ofPages(1, 1).pagesPerRank()).isEqualTo(1);
    }
}

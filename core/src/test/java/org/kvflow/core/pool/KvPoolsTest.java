package org.kvflow.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvPoolsTest {
    @Test
    void sharedPoolsStoreEachPageOnceOnItsOwner() {
        KvPools pools = KvPools.shared(4, PoolCapacity.ofPages(8, 2));
        int[] pages = pools.allocate(10);
        assertThat(pages).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        assertThat(pools.physicalPagesInUse()).isEqualTo(10);
        assertThat(pools.rank(0).usedPages()).isEqualTo(2); // pages 4, 8
        assertThat(pools.rank(1).usedPages()).isEqualTo(3); // pages 1, 5, 9
        assertThat(pools.rank(1).isUsed(2)).isTrue();       // page 9 -> local page 2
        assertThat(pools.capacityTokens()).isEqualTo((4 * 8 - 1) * 2);
        pools.free(pages);
        assertThat(pools.physicalPagesInUse()).isZero();
        assertThat(pools.peakPhysicalPages()).isEqualTo(10);
        assertThat(pools.leakCheck()).isEmpty();
    }

    @Test
    void replicatedPoolsStoreEveryPageOnEveryRank() {
        KvPools pools = KvPools.replicated(4, PoolCapacity.ofPages(8, 2));
        pools.allocate(5);
        assertThat(pools.physicalPagesInUse()).isEqualTo(20);
        assertThat(pools.rank(0).usedPages() + pools.rank(1).usedPages() + pools.rank(2).usedPages()
                + pools.rank(3).usedPages()).isEqualTo(20);
        assertThat(pools.rank(3).usedPages()).isEqualTo(5);
        assertThat(pools.capacityTokens()).isEqualTo(7 * 2);
        assertThatThrownBy(() -> pools.allocate(3)).isInstanceOf(PoolExhaustedException.class);
    }

    @Test
    void sharedHoldsCpTimesTheLogicalPagesOfReplicated() {
        PoolCapacity cap = PoolCapacity.ofPages(100, 64);
        assertThat(KvPools.shared(8, cap).freePages()).isEqualTo(799);
        assertThat(KvPools.replicated(8, cap).freePages()).isEqualTo(99);
    }

    @Test
    void badFreeLeavesEveryRankUntouched() {
        KvPools pools = KvPools.shared(2, PoolCapacity.ofPages(4, 1));
        pools.allocate(3);
        assertThatThrownBy(() -> pools.free(1, 2, 7)).isInstanceOf(DoubleFreeException.class);
        assertThat(pools.physicalPagesInUse()).isEqualTo(3);
        assertThatThrownBy(() -> pools.free(9)).isInstanceOf(ForeignPageException.class);
    }
}

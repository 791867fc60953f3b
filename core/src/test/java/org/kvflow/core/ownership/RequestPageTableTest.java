package org.kvflow.core.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolExhaustedException;

class RequestPageTableTest {
    @Test
    void extendFillsThePartialLastPageBeforeDrawingNewPages() {
        KvPools pools = KvPools.shared(2, PoolCapacity.ofPages(8, 4));
        RequestPageTable table = new RequestPageTable(4);
        assertThat(table.extend(5, pools)).containsExactly(1, 2);
        assertThat(table.extend(3, pools)).isEmpty();
        assertThat(table.extend(1, pools)).containsExactly(3);
        assertThat(table.seqLen()).isEqualTo(9);
        assertThat(table.pages()).containsExactly(1, 2, 3);
        assertThat(table.loc(0)).isEqualTo(4);
        assertThat(table.loc(8)).isEqualTo(12);
    }

    @Test
    void failedExtendChangesNothing() {
        KvPools pools = KvPools.shared(2, PoolCapacity.ofPages(2, 4));
        RequestPageTable table = new RequestPageTable(4);
        table.extend(4, pools);
        assertThatThrownBy(() -> table.extend(9, pools)).isInstanceOf(PoolExhaustedException.class).hasMessage("pool exhausted: requested 3 pages, 2 free");
        assertThatThrownBy(() -> table.page(1)).isInstanceOf(IndexOutOfBoundsException.class).hasMessage("page position 1 outside [0, 1)");
        assertThat(table.seqLen()).isEqualTo(4);
        assertThat(table.pageCount()).isEqualTo(1);
        table.release(pools);
        assertThat(pools.leakCheck()).isEmpty();
    }

    @Test
    void positionsAreRequestRelative() {
        KvPools pools = KvPools.shared(8, PoolCapacity.ofPages(4, 64));
        pools.allocate(16);
        RequestPageTable table = new RequestPageTable(64);
        table.extend(130, pools);
        assertThat(table.pageCount()).isEqualTo(3);
        assertThat(table.page(0)).isEqualTo(17);
        assertThatThrownBy(() -> table.page(3)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}

package org.kvflow.core.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolCapacity;

/** Every guard of the ownership map and the page table, at its boundary: the last value taken and the first refused. */
class OwnershipContractTest {
    private final OwnershipMap map = new OwnershipMap(4, 16);

    @Test
    void everyEntryPointRefusesANegativeArgumentNamingIt() {
        assertThatThrownBy(() -> map.owner(-1)).hasMessage("pageId must be >= 0, was -1");
        assertThatThrownBy(() -> map.localPage(-1)).hasMessage("pageId must be >= 0, was -1");
        assertThatThrownBy(() -> map.pageOfLoc(-1)).hasMessage("loc must be >= 0, was -1");
        assertThatThrownBy(() -> map.offsetOfLoc(-1)).hasMessage("loc must be >= 0, was -1");
        assertThatThrownBy(() -> map.pageId(0, -1)).hasMessage("localPage must be >= 0, was -1");
        assertThatThrownBy(() -> map.sharedRow(0, -1)).hasMessage("pagesPerRank must be >= 0, was -1");
        assertThat(map.owner(0)).isZero();
        assertThat(map.localPage(0)).isZero();
        assertThat(map.pageOfLoc(0)).isZero();
        assertThat(map.offsetOfLoc(0)).isZero();
        assertThat(map.sharedRow(0, 0)).isZero();
    }

    @Test
    void pageIdTakesOwnersZeroToCpMinusOneOnly() {
        assertThat(map.pageId(3, 2)).isEqualTo(11);
        assertThat(map.pageId(0, 0)).isZero();
        assertThatThrownBy(() -> map.pageId(4, 0)).hasMessage("owner must be in [0, 4), was 4");
        assertThatThrownBy(() -> map.pageId(-1, 0)).hasMessage("owner must be in [0, 4), was -1");
    }

    @Test
    void aTableRefusesAPageSizeBelowOneAndTokensOutsideItsLength() {
        assertThatThrownBy(() -> new RequestPageTable(0)).hasMessage("pageSize must be >= 1, was 0");
        assertThat(new RequestPageTable(1).pageSize()).isEqualTo(1);
        KvPools pools = KvPools.shared(2, PoolCapacity.ofPages(8, 4));
        RequestPageTable table = new RequestPageTable(4);
        assertThatThrownBy(() -> table.extend(-1, pools)).hasMessage("tokens must be >= 0, was -1");
        assertThat(table.extend(0, pools)).isEmpty();
        int[] fresh = table.extend(5, pools);
        assertThat(fresh).hasSize(2);
        assertThat(table.pageCount()).isEqualTo(2);
        assertThat(table.loc(0)).isEqualTo(fresh[0] * 4L);
        assertThat(table.loc(4)).isEqualTo(fresh[1] * 4L);
        assertThat(table.loc(3)).isEqualTo(fresh[0] * 4L + 3);
        assertThatThrownBy(() -> table.loc(5)).hasMessage("token 5 outside [0, 5)");
        assertThatThrownBy(() -> table.loc(-1)).hasMessage("token -1 outside [0, 5)");
        assertThat(table.extend(3, pools)).as("8 tokens still fit two pages").isEmpty();
        assertThat(table.extend(1, pools)).hasSize(1);
        assertThat(table.seqLen()).isEqualTo(9);
        RequestPageTable other = new RequestPageTable(8);
        assertThatThrownBy(() -> other.extend(1, pools)).hasMessage("pool page size 4 != table page size 8");
    }

    @Test
    void aTableGrowsPastItsFirstArrayAndAdoptsAPrefixOnlyWhenEmpty() {
        KvPools pools = KvPools.shared(2, PoolCapacity.ofPages(64, 2));
        RequestPageTable table = new RequestPageTable(2);
        for (int i = 0; i < 40; i++) {
            table.extend(2, pools);
        }
        assertThat(table.pageCount()).isEqualTo(40);
        assertThat(table.pages()).hasSize(40).doesNotHaveDuplicates().doesNotContain(0);
        RequestPageTable prefixed = new RequestPageTable(2);
        int[] prefix = new int[40];
        java.util.Arrays.setAll(prefix, i -> i + 1);
        prefixed.adoptPrefix(prefix);
        assertThat(prefixed.pages()).containsExactly(prefix);
        assertThat(prefixed.seqLen()).isEqualTo(80);
        assertThat(prefixed.loc(79)).isEqualTo(40 * 2 + 1);
        assertThatThrownBy(() -> prefixed.adoptPrefix(new int[] {1}))
                .hasMessage("a prefix can only start an empty table; this one has 40 pages");
    }
}

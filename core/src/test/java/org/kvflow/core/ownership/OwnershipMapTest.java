package org.kvflow.core.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** contract §4 and §15 items 1–6, 25. */
class OwnershipMapTest {
    @Test
    void sharedRowsOfTheHiCacheIoRankExample() {
        OwnershipMap map = new OwnershipMap(4, 2);
        long[] rows = LongStream.range(0, 16).map(loc -> map.sharedRow(loc, 8)).toArray();
        assertThat(rows).containsExactly(0, 1, 16, 17, 32, 33, 48, 49, 2, 3, 18, 19, 34, 35, 50, 51);
    }

    @Test
    void ownersAndLocalPagesOfARequestTable() {
        OwnershipMap map = new OwnershipMap(8, 64);
        long[] pages = {17, 18, 40, 3};
        assertThat(LongStream.of(pages).map(map::owner).toArray()).containsExactly(1, 2, 0, 3);
        assertThat(LongStream.of(pages).map(map::localPage).toArray()).containsExactly(2, 2, 5, 0);
    }

    @Test
    void cpOneOwnsEverythingOnRankZero() {
        OwnershipMap map = new OwnershipMap(1, 64);
        for (long p : new long[] {0, 1, 99, Integer.MAX_VALUE}) {
            assertThat(map.owner(p)).isZero();
            assertThat(map.localPage(p)).isEqualTo(p);
        }
    }

    @Test
    void locThousandAtCp8Ps64() {
        OwnershipMap map = new OwnershipMap(8, 64);
        assertThat(map.pageOfLoc(1000)).isEqualTo(15);
        assertThat(map.ownerOfLoc(1000)).isEqualTo(7);
        assertThat(map.localPage(15)).isEqualTo(1);
        assertThat(map.localRow(1000)).isEqualTo(104);
        assertThat(map.ownerOfLoc(1000)).isEqualTo((int) ((1000 % (8 * 64)) / 64));
    }

    @Test
    void inverseGivesThePageId() {
        assertThat(new OwnershipMap(8, 64).pageId(3, 5)).isEqualTo(43);
    }

    @Test
    void twelvePagesMapToTwelveDistinctSlots() {
        OwnershipMap map = new OwnershipMap(4, 1);
        Set<String> slots = new HashSet<>();
        for (long p = 0; p < 12; p++) {
            assertThat(map.localPage(p)).isBetween(0L, 2L);
            slots.add(map.owner(p) + "/" + map.localPage(p));
        }
        assertThat(slots).hasSize(12);
    }

    @Test
    void ownerWriteFilterOfAChunkOnPages12And13() {
        OwnershipMap map = new OwnershipMap(4, 4);
        for (long loc = 48; loc < 56; loc++) { // pages 12 and 13
            int owner = map.ownerOfLoc(loc);
            assertThat(owner).isEqualTo(loc < 52 ? 0 : 1);
            assertThat(map.localPage(map.pageOfLoc(loc))).isEqualTo(3);
            assertThat(map.localRow(loc)).isEqualTo(3 * 4 + loc % 4);
        }
    }
}

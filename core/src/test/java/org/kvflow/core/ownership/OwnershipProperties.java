package org.kvflow.core.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.kvflow.core.Gen;
import org.kvflow.core.SeededProperty;

/** contract §4.1 as properties over cp 1–16, ps 1–256, page ids up to 2^31−1 (seeded; a failure names its seed). */
class OwnershipProperties {
    @SeededProperty
    void ownerAndLocalPageInvertToThePage(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(1, 16);
        int ps = gen.intIn(1, 256);
        int page = gen.intIn(0, Integer.MAX_VALUE);
        OwnershipMap map = new OwnershipMap(cp, ps);
        int owner = map.owner(page);
        assertThat(owner).isBetween(0, cp - 1);
        assertThat(map.pageId(owner, map.localPage(page))).isEqualTo(page);
    }

    @SeededProperty
    void everySlotOfARankIsOnePage(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(1, 16);
        int ps = gen.intIn(1, 256);
        long localPage = gen.longIn(0, Integer.MAX_VALUE / 16);
        OwnershipMap map = new OwnershipMap(cp, ps);
        for (int owner = 0; owner < cp; owner++) {
            long page = map.pageId(owner, localPage);
            assertThat(page).isBetween(0L, (long) Integer.MAX_VALUE);
            assertThat(map.owner(page)).isEqualTo(owner);
            assertThat(map.localPage(page)).isEqualTo(localPage);
        }
    }

    @SeededProperty
    void sharedRowsAreInjectiveOverThePool(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(1, 16);
        int ps = gen.intIn(1, 256);
        int pagesPerRank = gen.intIn(1, 8);
        OwnershipMap map = new OwnershipMap(cp, ps);
        long locs = (long) cp * pagesPerRank * ps;
        Set<Long> rows = new HashSet<>();
        for (long loc = 0; loc < locs; loc++) {
            long row = map.sharedRow(loc, pagesPerRank);
            assertThat(row).isBetween(0L, locs - 1);
            assertThat(rows.add(row)).as("row %d of loc %d seen twice", row, loc).isTrue();
        }
    }

    @SeededProperty
    void sharedRowOfALargeLocStaysInItsRankBlock(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(1, 16);
        int ps = gen.intIn(1, 256);
        int page = gen.intIn(0, Integer.MAX_VALUE);
        int offset = gen.intIn(0, 255);
        OwnershipMap map = new OwnershipMap(cp, ps);
        long loc = (long) page * ps + offset % ps;
        long pagesPerRank = (long) Integer.MAX_VALUE / cp + 1;
        long row = map.sharedRow(loc, pagesPerRank);
        assertThat(row / (pagesPerRank * ps)).isEqualTo(map.ownerOfLoc(loc));
        assertThat(row % (pagesPerRank * ps)).isEqualTo(map.localRow(loc));
    }
}

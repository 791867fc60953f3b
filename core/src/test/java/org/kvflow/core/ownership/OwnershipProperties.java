package org.kvflow.core.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** SPEC §4.1 as properties over cp 1–16, ps 1–256, page ids up to 2^31−1. */
class OwnershipProperties {
    @Property
    void ownerAndLocalPageInvertToThePage(@ForAll @IntRange(min = 1, max = 16) int cp,
                                          @ForAll @IntRange(min = 1, max = 256) int ps,
                                          @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int page) {
        OwnershipMap map = new OwnershipMap(cp, ps);
        int owner = map.owner(page);
        assertThat(owner).isBetween(0, cp - 1);
        assertThat(map.pageId(owner, map.localPage(page))).isEqualTo(page);
    }

    @Property
    void everySlotOfARankIsOnePage(@ForAll @IntRange(min = 1, max = 16) int cp,
                                   @ForAll @IntRange(min = 1, max = 256) int ps,
                                   @ForAll @LongRange(min = 0, max = Integer.MAX_VALUE / 16) long localPage) {
        OwnershipMap map = new OwnershipMap(cp, ps);
        for (int owner = 0; owner < cp; owner++) {
            long page = map.pageId(owner, localPage);
            assertThat(page).isBetween(0L, (long) Integer.MAX_VALUE);
            assertThat(map.owner(page)).isEqualTo(owner);
            assertThat(map.localPage(page)).isEqualTo(localPage);
        }
    }

    @Property(tries = 300)
    void sharedRowsAreInjectiveOverThePool(@ForAll @IntRange(min = 1, max = 16) int cp,
                                           @ForAll @IntRange(min = 1, max = 256) int ps,
                                           @ForAll @IntRange(min = 1, max = 8) int pagesPerRank) {
        OwnershipMap map = new OwnershipMap(cp, ps);
        long locs = (long) cp * pagesPerRank * ps;
        Set<Long> rows = new HashSet<>();
        for (long loc = 0; loc < locs; loc++) {
            long row = map.sharedRow(loc, pagesPerRank);
            assertThat(row).isBetween(0L, locs - 1);
            assertThat(rows.add(row)).as("row %d of loc %d seen twice", row, loc).isTrue();
        }
    }

    @Property
    void sharedRowOfALargeLocStaysInItsRankBlock(@ForAll @IntRange(min = 1, max = 16) int cp,
                                                @ForAll @IntRange(min = 1, max = 256) int ps,
                                                @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int page,
                                                @ForAll @IntRange(min = 0, max = 255) int offset) {
        OwnershipMap map = new OwnershipMap(cp, ps);
        long loc = (long) page * ps + offset % ps;
        long pagesPerRank = (long) Integer.MAX_VALUE / cp + 1;
        long row = map.sharedRow(loc, pagesPerRank);
        assertThat(row / (pagesPerRank * ps)).isEqualTo(map.ownerOfLoc(loc));
        assertThat(row % (pagesPerRank * ps)).isEqualTo(map.localRow(loc));
    }
}

package org.kvflow.operators.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.ConfigIssue;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.StartupValidator;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.ownership.OwnershipMap;

/**
 * Why a NIXL-style sender is rejected with CP shared KV (contract §8.4, E-PD-1): pairing a rank's
 * owned pages with a contiguous slice of the decode page list, element by element, puts the KV of
 * one position on another position's decode page. kvflow has no such backend; it exists only as
 * a configuration value that startup validation refuses.
 */
class NixlSlicePairingTest {
    private static final OwnershipMap CP4 = new OwnershipMap(4, 64);
    private static final int[] P = {8, 9, 10, 11, 12, 13, 14, 15};
    private static final long[] D = {40, 41, 42, 43, 44, 45, 46, 47};

    /** The generic sender: owned source pages paired in order with the decode slice shrunk to their count. */
    private static List<long[]> slicePairs(int rank) {
        List<Long> sources = new ArrayList<>();
        for (int page : P) {
            if (CP4.owner(page) == rank) {
                sources.add(CP4.localPage(page));
            }
        }
        List<long[]> pairs = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            pairs.add(new long[] {sources.get(i), D[i]});
        }
        return pairs;
    }

    @Test
    void slicePairingWritesOtherPositionsDecodePages() {
        // rank 1 owns logical ids 9 and 13: positions 1 and 5, local pages 2 and 3
        assertThat(TransferPlanner.plan(1, CP4, P, D, 0, 8, true).pairs())
                .containsExactly(new PagePair(1, 2, 41), new PagePair(5, 3, 45));
        List<long[]> wrong = slicePairs(1);
        assertThat(wrong).containsExactly(new long[] {2, 40}, new long[] {3, 41});
        // decode position 0 (page 40) would receive position 1's KV, position 1 (page 41) position 5's
        assertThat(positionOfDecodePage(wrong.get(0)[1])).isEqualTo(0);
        assertThat(positionOfDecodePage(wrong.get(1)[1])).isEqualTo(1);
    }

    @Test
    void overAllRanksSlicePairingCollidesWhereOwnerFilteringCoversEachPositionOnce() {
        List<Long> sliceTargets = new ArrayList<>();
        List<Long> plannedTargets = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            slicePairs(r).forEach(p -> sliceTargets.add(p[1]));
            TransferPlanner.plan(r, CP4, P, D, 0, 8, true).pairs().forEach(p -> plannedTargets.add(p.dst()));
        }
        assertThat(plannedTargets).containsExactlyInAnyOrder(40L, 41L, 42L, 43L, 44L, 45L, 46L, 47L);
        assertThat(sliceTargets).containsOnly(40L, 41L).hasSize(8); // every rank writes D[0], D[1]
    }

    @Test
    void startupValidationRejectsTheConfiguration() {
        CpSharedKvConfig nixl = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).sharedKv(true)
                .disaggregationMode(DisaggregationMode.PREFILL).transferBackend(TransferBackendKind.NIXL).build();
        assertThat(StartupValidator.validate(nixl).errors()).extracting(ConfigIssue::code).containsExactly("E-PD-1");
    }

    private static int positionOfDecodePage(long page) {
        for (int i = 0; i < D.length; i++) {
            if (D[i] == page) {
                return i;
            }
        }
        throw new AssertionError(page);
    }
}

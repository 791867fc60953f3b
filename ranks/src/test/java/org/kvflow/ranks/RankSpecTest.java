package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/** A rank process's spec travels as its command line and comes back equal; a bad one is refused naming the value. */
class RankSpecTest {
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 3, 16, 4, 8), KvDtype.FP8_E4M3);

    @Test
    void aSpecComesBackFromItsArgumentsEqual() {
        RankSpec spec = new RankSpec(5, "cuda:1", LAYOUT, 64, 320);
        assertThat(spec.arguments()).containsExactly("5", "cuda:1", "toy", ModelKind.TOY_MLA.wireName(), "3", "16", "4", "8", "FP8_E4M3", "64", "320",
                "false");
        assertThat(RankSpec.parse(spec.arguments())).isEqualTo(spec);
        assertThat(RankSpec.parse(spec.shared().forRank(0).arguments())).isEqualTo(new RankSpec(0, "cuda:1", LAYOUT, 64, 320, true));
    }

    @Test
    void theSmallestSizesAreTakenAndSmallerOnesRefused() {
        assertThat(new RankSpec(0, "java", LAYOUT, 1, 0).pages()).isZero();
        assertThatThrownBy(() -> new RankSpec(-1, "java", LAYOUT, 4, 6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank -1, page size 4, 6 pages: rank and pages must be >= 0 and the page size >= 1");
        assertThatThrownBy(() -> new RankSpec(0, "java", LAYOUT, 0, 6))
                .hasMessage("rank 0, page size 0, 6 pages: rank and pages must be >= 0 and the page size >= 1");
        assertThatThrownBy(() -> new RankSpec(0, "java", LAYOUT, 4, -1))
                .hasMessage("rank 0, page size 4, -1 pages: rank and pages must be >= 0 and the page size >= 1");
    }

    @Test
    void aBadCommandLineIsRefusedNamingTheArgument() {
        List<String> good = new RankSpec(2, "java", LAYOUT, 4, 6).arguments();
        assertThatThrownBy(() -> RankSpec.parse(good.subList(0, 11))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("a rank process takes 12 arguments (rank memory model kind layers latent rope index dtype pageSize pages"
                        + " shareable), got 11: [2, java");
        List<String> notANumber = new ArrayList<>(good);
        notANumber.set(9, "four");
        assertThatThrownBy(() -> RankSpec.parse(notANumber)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank process argument 9 is not a number: four");
        List<String> notAKind = new ArrayList<>(good);
        notAKind.set(3, "transformer");
        assertThatThrownBy(() -> RankSpec.parse(notAKind)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank process argument 3 is not a model kind: transformer");
    }
}

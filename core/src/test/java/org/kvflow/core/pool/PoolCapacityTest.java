package org.kvflow.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.Gen;
import org.kvflow.core.SeededProperty;

class PoolCapacityTest {
    private static final long GIB_40 = 42_949_672_960L;

    @Test
    void fortyGibPerRankMatchesSpecTable() {
        PoolCapacity dsFp8 = PoolCapacity.fromBudget(GIB_40, new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3), 64);
        PoolCapacity dsBf16 = PoolCapacity.fromBudget(GIB_40, new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.BF16), 64);
        PoolCapacity glmFp8 = PoolCapacity.fromBudget(GIB_40, new KvLayout(ModelShape.GLM5, KvDtype.FP8_E4M3), 64);
        assertThat(dsFp8.pagesPerRank()).isEqualTo(13_961);
        assertThat(dsBf16.pagesPerRank()).isEqualTo(8_568);
        assertThat(glmFp8.pagesPerRank()).isEqualTo(10_918);
        assertThat(dsFp8.logicalPages(PoolLayout.REPLICATED, 8) * 64).isEqualTo(893_504);
        assertThat(dsFp8.logicalPages(PoolLayout.SHARED, 8) * 64).isEqualTo(7_148_032);
        assertThat(dsBf16.logicalPages(PoolLayout.SHARED, 8) * 64).isEqualTo(4_386_816);
        assertThat(glmFp8.logicalPages(PoolLayout.SHARED, 8) * 64).isEqualTo(5_590_016);
        assertThat(dsFp8.usableLogicalTokens(PoolLayout.SHARED, 8)).isEqualTo(7_148_032 - 64);
    }

    @Test
    void dtypeChangesOnlyThePageCount() {
        // contract §6.3a: 1 MiB, 4 layers, ps 4, cp 4 -> 332 vs 204 tokens, 83 vs 51 pages, 332 vs 204 logical pages.
        ModelShape toy = ModelShape.DEEPSEEK_V32.withLayers(4);
        PoolCapacity fp8 = PoolCapacity.fromBudget(1 << 20, new KvLayout(toy, KvDtype.FP8_E4M3), 4);
        PoolCapacity bf16 = PoolCapacity.fromBudget(1 << 20, new KvLayout(toy, KvDtype.BF16), 4);
        assertThat(fp8.pagesPerRank()).isEqualTo(83);
        assertThat(bf16.pagesPerRank()).isEqualTo(51);
        assertThat(fp8.logicalPages(PoolLayout.SHARED, 4)).isEqualTo(332);
        assertThat(bf16.logicalPages(PoolLayout.SHARED, 4)).isEqualTo(204);
        assertThat(fp8.usableLogicalTokens(PoolLayout.SHARED, 4)).isEqualTo(1_328 - 4);
        assertThat(bf16.usableLogicalTokens(PoolLayout.SHARED, 4)).isEqualTo(816 - 4);
    }

    @Test
    void capacityRatioIsCpMinusThePaddingPage() {
        PoolCapacity cap = PoolCapacity.ofPages(13_961, 64);
        assertThat(cap.capacityRatio(8)).isCloseTo((8.0 * 13_961 - 1) / 13_960, within(1e-12));
    }

    @SeededProperty
    void capacityRatioWithinOnePercentOfCpFromHundredPages(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(1, 16);
        int pages = gen.intIn(100, 1_000_000);
        assertThat(PoolCapacity.ofPages(pages, 64).capacityRatio(cp)).isCloseTo(cp, within(cp * 0.01));
    }

    @Test
    void budgetTooSmallForOnePageIsRefusedWithTheNumbers() {
        KvLayout layout = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 1, 8, 2, 4), KvDtype.BF16);
        assertThatThrownBy(() -> PoolCapacity.fromBudget(10, layout, 64))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pagesPerRank must be >= 1, was 0 (budget 10 B at 28 B/token, page size 64)");
        assertThatThrownBy(() -> PoolCapacity.fromBudget(-1, layout, 64)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("budgetBytes must be >= 0, was -1");
    }
}

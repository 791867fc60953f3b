package org.kvflow.cuda.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which kernel scores a call on cuda, its grid, and the shapes refused before any launch (no GPU needed). */
class ScoreGridTest {
    @ParameterizedTest
    @ValueSource(ints = {16, 32, 48, 64, 80, 96, 112, 128})
    void dimsThatAreAMultipleOf16UpTo128RunThePrebuiltKernel(int dim) {
        ScoreGrid grid = ScoreGrid.of(dim, 10, 100, 132);
        assertThat(grid.prebuilt()).isTrue();
        assertThat(grid.steps()).isEqualTo(dim / 16);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 7, 8, 24, 100, 130, 144, 576})
    void otherDimsRunTheTwin(int dim) {
        assertThat(ScoreGrid.of(dim, 10, 100, 132).prebuilt()).isFalse();
    }

    @Test
    void aLongChunkTakesSpansOfTheLongestLength() {
        // 64 blocks of 128 queries: 4 spans would fill 132 multiprocessors 2 deep, but a span stops at 256 tiles
        assertThat(ScoreGrid.of(128, 8192, 131_072, 132)).isEqualTo(new ScoreGrid(8, 64, 64, 256));
    }

    @Test
    void aFewQueriesSpreadTheKeysOverEnoughBlocksToFillTheDevice() {
        // one block of queries: 264 spans wanted, 8,192 tiles of keys → 32 tiles a block, 256 blocks
        assertThat(ScoreGrid.of(128, 128, 65_536, 132)).isEqualTo(new ScoreGrid(8, 1, 256, 32));
        assertThat(ScoreGrid.of(64, 1, 7, 132)).isEqualTo(new ScoreGrid(4, 1, 1, 1));
    }

    @Test
    void theSecondGridDimensionStaysWithinCudasLimit() {
        ScoreGrid grid = ScoreGrid.of(16, 1, 1 << 30, 132);
        assertThat(grid.spans()).isLessThanOrEqualTo(65_535);
        assertThat((long) grid.spans() * grid.span() * ScoreGrid.TILE).isGreaterThanOrEqualTo(1L << 30);
    }

    @Test
    void noQueriesOrNoKeysLaunchNothing() {
        assertThat(ScoreGrid.of(128, 0, 100, 132).empty()).isTrue();
        assertThat(ScoreGrid.of(128, 5, 0, 132).empty()).isTrue();
        assertThat(ScoreGrid.of(128, 5, 1, 132).empty()).isFalse();
    }

    @Test
    void aShapeLargerThanItsArraysIsRefusedNamingTheArray() {
        ScoreGrid.requireFits("g.scores", 128, 2, 3, 256, 384, 3, 6);
        assertThatThrownBy(() -> ScoreGrid.requireFits("g.scores", 128, 3, 3, 256, 384, 3, 9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("g.scores: shape {128, 3, 3} needs 384 queries values; the array holds 256");
        assertThatThrownBy(() -> ScoreGrid.requireFits("g.scores", 128, 2, 4, 256, 384, 4, 8))
                .hasMessage("g.scores: shape {128, 2, 4} needs 512 keys values; the array holds 384");
        assertThatThrownBy(() -> ScoreGrid.requireFits("g.scores", 200, 1, 3, 200, 600, 3, 3))
                .hasMessage("g.scores: shape {200, 1, 3} needs 6 key scales values; the array holds 3");
        assertThatThrownBy(() -> ScoreGrid.requireFits("g.scores", 128, 2, 3, 256, 384, 3, 5))
                .hasMessage("g.scores: shape {128, 2, 3} needs 6 scores values; the array holds 5");
        assertThatThrownBy(() -> ScoreGrid.requireFits("g.scores", 0, 2, 3, 256, 384, 3, 6))
                .hasMessage("g.scores: shape {0, 2, 3} is not {dim > 0, queries ≥ 0, keys ≥ 0}");
    }
}

package org.kvflow.core.hicache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** contract §11.1 vectors and §15 item 40. */
class PageHashChainTest {
    @Test
    void chainedVectorsAtPageSizeTwo() {
        List<String> keys = PageHashChain.fullPageHashes(new int[] {1, 2, 3, 4}, 2).stream().map(PageHashChain::key).toList();
        assertThat(keys).containsExactly(
                "34fb5c825de7ca4aea6e712f19d439c1da0c92c37b423936c5f618545ca4fa1f",
                "c57b445f90651b9a650e516ab2238c965b21af35608a31c303e6d9e407f2915c");
    }

    @Test
    void vectorAtPageSizeFour() {
        assertThat(PageHashChain.key(PageHashChain.fullPageHashes(new int[] {1, 2, 3, 4}, 4).getFirst()))
                .isEqualTo("cf97adeedb59e05bfd73a2b4c2a8885708c4f4f70c84c64b27120e72ab733b72");
    }

    @Test
    void shortFinalPageIsNeverHashed() {
        assertThat(PageHashChain.fullPageHashes(new int[] {1, 2, 3}, 2)).hasSize(1);
        assertThat(PageHashChain.fullPageHashes(new int[] {1}, 2)).isEmpty();
    }

    @Test
    void sameTokensAfterADifferentPrefixHashDifferently() {
        byte[] a = PageHashChain.fullPageHashes(new int[] {1, 2, 3, 4}, 2).get(1);
        byte[] b = PageHashChain.fullPageHashes(new int[] {9, 9, 3, 4}, 2).get(1);
        assertThat(a).isNotEqualTo(b);
    }

    @Test
    void aNegativeTokenIdIsRefusedNamingItsPlace() {
        assertThatThrownBy(() -> PageHashChain.fullPageHashes(new int[] {1, 2, 3, -7}, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("token id at 3 is negative: -7");
    }
}

package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A checked batch is one run of pages in every buffer: a copy that moves other pages is refused by name before anything moves. */
class PageCopiesTest {
    @Test
    void aCheckedBatchOfTwoRunsIsRefusedNamingTheFirstCopyThatDiffersAndNothingMoves() {
        ChecksummingMemory memory = new ChecksummingMemory();
        PageBuffer mla = memory.allocate("mla", 4, 40);
        PageBuffer index = memory.allocate("index", 4, 24);
        PageBuffer mlaTo = memory.allocate("mla-to", 4, 40);
        PageBuffer indexTo = memory.allocate("index-to", 4, 24);
        byte[] ones = new byte[4 * 40];
        java.util.Arrays.fill(ones, (byte) 1);
        memory.write(mla, 0, ones, 0, ones.length);
        long[] src = {0, 1};
        long[] dst = {3, 2};
        PageCopies.checkOneRun(List.of(new PageCopy(mla, src, mlaTo, dst), new PageCopy(index, src.clone(), indexTo, dst.clone())));
        assertThatThrownBy(() -> memory.copyPagesChecked(List.of(new PageCopy(mla, src, mlaTo, dst), new PageCopy(index, new long[] {0, 2}, indexTo, dst))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("copy 1 of a checked batch (index to index-to) moves other pages than copy 0: a checked batch copies one run of pages in every buffer");
        assertThatThrownBy(() -> PageCopies.checkOneRun(List.of(new PageCopy(mla, src, mlaTo, dst), new PageCopy(index, src, indexTo, new long[] {3, 1}))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("copy 1 of a checked batch (index to index-to) moves other pages than copy 0: a checked batch copies one run of pages in every buffer");
        assertThatThrownBy(() -> PageCopies.checkOneRun(List.of(new PageCopy(mla, src, mlaTo, dst), new PageCopy(index, new long[] {0, 4}, indexTo, dst))))
                .as("the pairs' own checks come first").isInstanceOf(PageOutOfRangeException.class);
        byte[] landed = new byte[4 * 40];
        memory.read(mlaTo, 0, landed.length, landed, 0);
        assertThat(landed).as("nothing moved").containsOnly(0);
    }
}

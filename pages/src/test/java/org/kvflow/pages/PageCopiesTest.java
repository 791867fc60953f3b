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

    @Test
    void aBatchChecksASharedListAgainstEveryBufferSizeItIsUsedWith() {
        PageBuffer big = heap("big", 8, 4), small = heap("small", 4, 4), to = heap("to", 8, 4), smallTo = heap("small-to", 4, 4);
        long[] pages = {1, 5};
        long[] near = {0, 1};
        PageCopies.checkPairs(List.of(new PageCopy(big, pages, to, near), new PageCopy(big, pages, to, near))); // the same row twice
        assertThatThrownBy(() -> PageCopies.checkPairs(List.of(new PageCopy(big, pages, to, near), new PageCopy(small, pages, to, near))))
                .as("the same source list, a smaller source buffer right after").isInstanceOf(PageOutOfRangeException.class)
                .hasMessage("small: entry 1 names page 5, outside [0, 4)");
        assertThatThrownBy(() -> PageCopies.checkPairs(List.of(new PageCopy(big, near, to, pages), new PageCopy(big, near, smallTo, pages))))
                .as("the same destination list, a smaller destination right after").isInstanceOf(PageOutOfRangeException.class)
                .hasMessage("small-to: entry 1 names page 5, outside [0, 4)");
        assertThatThrownBy(() -> PageCopies.checkPairs(List.of(new PageCopy(small, near, to, near), new PageCopy(big, pages, to, near),
                new PageCopy(small, pages, smallTo, near)))).as("a list seen before with another size, not in the row before")
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("small: entry 1 names page 5, outside [0, 4)");
        assertThatThrownBy(() -> PageCopies.checkPairs(List.of(new PageCopy(big, pages, to, near), new PageCopy(big, new long[] {1, 9}, to, near))))
                .as("an equal-looking new list is a new list").isInstanceOf(PageOutOfRangeException.class)
                .hasMessage("big: entry 1 names page 9, outside [0, 8)");
        assertThatThrownBy(() -> PageCopies.checkPairs(List.of(new PageCopy(big, pages, to, near), new PageCopy(big, pages, to, new long[] {0}))))
                .as("each row's shape, the rows after the first too").isInstanceOf(PageListMismatchException.class)
                .hasMessage("page lists differ in length: 2 source vs 1 destination pages");
        PageBuffer wide = heap("wide", 8, 8);
        assertThatThrownBy(() -> PageCopies.checkPairs(List.of(new PageCopy(big, pages, to, near), new PageCopy(big, pages, wide, near))))
                .isInstanceOf(PageSizeMismatchException.class).hasMessage("page sizes differ: big has 4 B, wide has 8 B");
        assertThatThrownBy(() -> PageCopies.checkPairs(small, pages, to, near)).as("one pair: its source list")
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("small: entry 1 names page 5, outside [0, 4)");
        assertThatThrownBy(() -> PageCopies.checkPairs(to, near, small, pages)).as("one pair: its destination list")
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("small: entry 1 names page 5, outside [0, 4)");
    }

    private static PageBuffer heap(String label, int pages, int pageBytes) {
        return new HeapPageMemory().allocate(label, pages, pageBytes);
    }
}

package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/** A gather prepared once runs the same pages as the plain gather, on lists of its own, through its memory's kept copy where it has one. */
class PreparedGatherTest {
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 2, 16, 4, 8), KvDtype.FP8_E4M3);

    /** A memory that keeps prepared copies: each run copies the batch it kept, and is counted. */
    private static final class Preparing extends CrossingMemory implements PreparedCopies {
        int runs;

        @Override
        public Prepared prepare(List<PageCopy> copies) {
            PageCopies.checkPairs(copies);
            List<PageCopy> kept = List.copyOf(copies);
            return new Prepared() {
                @Override
                public long run() {
                    runs++;
                    return copyPages(kept);
                }

                @Override
                public void close() {
                }
            };
        }
    }

    private static PageStore filled(PageMemory memory, String label, int pages, long seed) {
        return RandomPages.fill(PageStore.allocate(memory, label, LAYOUT, 4, pages), seed);
    }

    private static List<byte[]> pages(PageStore store) {
        List<byte[]> out = new ArrayList<>();
        for (int p = 0; p < store.pages(); p++) {
            for (KvComponent c : KvComponent.values()) {
                out.add(store.readPage(c, p));
            }
        }
        return out;
    }

    @Test
    void aRunCopiesWhatTheGatherCopiesFromListsItKept() {
        try (Preparing memory = new Preparing()) {
            PageStore a = filled(memory, "rank 0", 8, 1);
            PageStore b = filled(memory, "rank 1", 8, 2);
            PageStore plain = PageStore.allocate(memory, "plain view", LAYOUT, 4, 4);
            PageStore view = PageStore.allocate(memory, "view", LAYOUT, 4, 4);
            long[] fromA = {5, 2};
            List<long[]> src = List.of(fromA, new long[] {7, 0});
            List<long[]> dst = List.of(new long[] {0, 3}, new long[] {1, 2});
            plain.gatherFrom(List.of(a, b), src, dst);
            try (PreparedGather gather = PreparedGather.of(view.countedAs("kvflow.materialize"), List.of(a, b), src, dst)) {
                fromA[0] = 1; // the caller's list changes after the gather was prepared
                gather.run();
                assertThat(gather.kept()).isTrue();
                assertThat(memory.runs).isOne();
                assertThat(pages(view)).containsExactlyElementsOf(pages(plain));
                long pageBytes = (long) view.layers() * (view.mlaPageBytes() + view.indexPageBytes());
                assertThat(memory.hostTraffic().bytes("kvflow.materialize")).as("the run's bytes count for the view's stage").isEqualTo(4 * pageBytes);
            }
        }
    }

    @Test
    void sourcesInAnotherMemoryOrAMemoryThatKeepsNothingGatherPlainly() {
        try (Preparing memory = new Preparing(); CrossingMemory plainMemory = new CrossingMemory()) {
            PageStore device = filled(memory, "rank 0", 8, 3);
            PageStore heap = filled(new HeapPageMemory(), "rank 1", 8, 4);
            PageStore view = PageStore.allocate(memory, "view", LAYOUT, 4, 4);
            try (PreparedGather gather = PreparedGather.of(view, List.of(device, heap), List.of(new long[] {1}, new long[] {2}),
                    List.of(new long[] {0}, new long[] {1}))) {
                gather.run();
                assertThat(gather.kept()).isFalse();
                assertThat(memory.runs).isZero();
                assertThat(view.readPage(KvComponent.MLA, 1)).isEqualTo(heap.readPage(KvComponent.MLA, 2));
                assertThat(view.readPage(KvComponent.INDEX, 0)).isEqualTo(device.readPage(KvComponent.INDEX, 1));
            }
            PageStore other = filled(plainMemory, "rank 2", 8, 5);
            PageStore otherView = PageStore.allocate(plainMemory, "view 2", LAYOUT, 4, 1);
            try (PreparedGather gather = PreparedGather.of(otherView, List.of(other), List.of(new long[] {6}), List.of(new long[] {0}))) {
                gather.run();
                assertThat(gather.kept()).as("a memory without PreparedCopies").isFalse();
                assertThat(otherView.readPage(KvComponent.MLA, 0)).isEqualTo(other.readPage(KvComponent.MLA, 6));
            }
        }
    }

    @Test
    void aBadListIsRefusedWhenPreparedAsTheGatherRefusesIt() {
        try (Preparing memory = new Preparing()) {
            PageStore a = filled(memory, "rank 0", 8, 6);
            PageStore view = PageStore.allocate(memory, "view", LAYOUT, 4, 2);
            assertThatThrownBy(() -> PreparedGather.of(view, List.of(a), List.of(new long[] {8}), List.of(new long[] {0})))
                    .isInstanceOf(PageOutOfRangeException.class).hasMessageContaining("rank 0");
            assertThatThrownBy(() -> PreparedGather.of(view, List.of(a), List.of(new long[] {1, 2}), List.of(new long[] {0})))
                    .isInstanceOf(PageListMismatchException.class);
            assertThatThrownBy(() -> PreparedGather.of(view, List.of(a), List.of(), List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("1 sources with 0 source and 0 destination page lists");
            assertThat(memory.runs).isZero();
        }
    }
}

package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/** A store's bytes across the host are counted under the stage of the view that moved them, on any thread. */
class HostTrafficTest {
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 2, 16, 4, 8), KvDtype.FP8_E4M3);

    @Test
    void aViewCountsUnderItsStageOnEveryThreadAndTheStoreItselfUnderNobody() throws Exception {
        try (CrossingMemory memory = new CrossingMemory(); PageStore store = PageStore.allocate(memory, "pool", LAYOUT, 4, 8)) {
            int page = store.mlaPageBytes() * store.layers();
            PageStore backup = store.countedAs("kvflow.backup");
            backup.readPage(KvComponent.MLA, 1);
            CompletableFuture.runAsync(() -> store.countedAs("kvflow.transfer").readPage(KvComponent.MLA, 2)).get(); // another thread: still the view's
            store.readPage(KvComponent.MLA, 3);
            assertThat(memory.hostTraffic().byStage()).isEqualTo(Map.of("kvflow.backup", (long) page, "kvflow.transfer", (long) page,
                    HostTraffic.UNATTRIBUTED, (long) page));
            assertThat(memory.hostTraffic().bytes("kvflow.write")).isZero();
            assertThat(memory.hostTraffic().total()).isEqualTo(3L * page);
            assertThat(store.countedAs("kvflow.backup")).isSameAs(backup);
            assertThat(backup.countedAs(HostTraffic.UNATTRIBUTED).countedAs("kvflow.backup")).isSameAs(backup);
        }
    }

    @Test
    void aGatherCountsItsBatchUnderTheDestinationsStageAndAStagedCopyUnderEachSidesOwn() {
        try (CrossingMemory memory = new CrossingMemory(); PageStore owner = PageStore.allocate(memory, "owner", LAYOUT, 4, 8);
             PageStore view = PageStore.allocate(memory, "view", LAYOUT, 4, 2); PageStore heap = PageStore.onHeap("heap", LAYOUT, 4, 8)) {
            long pageBytes = (long) owner.layers() * (owner.mlaPageBytes() + owner.indexPageBytes());
            view.countedAs("kvflow.materialize").gatherFrom(List.of(owner), List.of(new long[] {5, 6}), List.of(new long[] {0, 1}));
            assertThat(memory.hostTraffic().byStage()).isEqualTo(Map.of("kvflow.materialize", 2 * pageBytes));
            // a store in another memory is staged through the host: the source's reads count under its view's stage
            heap.countedAs("kvflow.restore").copyPagesFrom(owner.countedAs("kvflow.restore"), new long[] {1}, new long[] {2});
            assertThat(memory.hostTraffic().bytes("kvflow.restore")).isEqualTo(pageBytes);
            assertThat(heap.memory().hostTraffic().total()).as("the heap memory crosses nothing").isZero();
        }
    }

    @Test
    void closingAViewClosesItsStoreAndEveryUseAfterSaysSo() {
        try (CrossingMemory memory = new CrossingMemory()) {
            PageStore store = PageStore.allocate(memory, "pool", LAYOUT, 4, 8);
            PageStore view = store.countedAs("kvflow.transfer");
            view.closeWith(() -> new IllegalStateException("pool: rank 3 died"));
            assertThatThrownBy(() -> store.readPage(KvComponent.MLA, 0)).isInstanceOf(IllegalStateException.class).hasMessage("pool: rank 3 died");
            assertThatThrownBy(() -> view.readPage(KvComponent.MLA, 0)).hasMessage("pool: rank 3 died");
            assertThatThrownBy(() -> store.countedAs("kvflow.write").readPage(KvComponent.INDEX, 0)).hasMessage("pool: rank 3 died");
        }
    }

    @Test
    void aNegativeCountIsRefusedNamingTheStage() {
        assertThatThrownBy(() -> new HostTraffic().meter("kvflow.write").add(-4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a negative byte count crossed for kvflow.write: -4");
    }
}

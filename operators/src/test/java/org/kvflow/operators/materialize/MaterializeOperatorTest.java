package org.kvflow.operators.materialize;

import org.kvflow.operators.group.FaultyStage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.DebugMode;
import org.kvflow.core.DiagnosticCheckException;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.core.validate.PageGroupViolation;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.CpSharedKvBatchException;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.Workloads;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;

class MaterializeOperatorTest {
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.BF16, 2);

    @Test
    void corruptedTokenRowFailsThatRequestAloneBeforeAnyGather() {
        KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), MODEL, false);
        PrefillBatch batch = Workloads.written(group, List.of(new PrefillRequest("ok", new int[13], 0), new PrefillRequest("bad", new int[9], 0)));
        RequestState bad = batch.entries().get(1).state();
        FaultyStage.corruptLoc(bad, 5, 1); // second page: entry 1 breaks the run

        PrefillBatch out = Flux.just(batch).transform(new MaterializeOperator(group, new QuerySampler(4, 3))).blockLast();

        assertThat(out.entries().get(1).failure()).isInstanceOfSatisfying(PageGroupValidationException.class, e -> {
            assertThat(e.kind()).isEqualTo(PageGroupViolation.NON_CONTIGUOUS);
            assertThat(e.group()).isEqualTo(1);
            assertThat(e.offset()).isEqualTo(1);
            assertThat(e.context()).isEqualTo("materialize req bad");
        });
        assertThat(bad.isReleased()).isTrue();
        RequestState ok = batch.entries().getFirst().state();
        assertThat(out.entries().getFirst().failure()).isNull();
        assertThat(out.entries().getFirst().attention()).as("4 sampled positions, 2 layers").hasSize(2 * 4);
        group.release(ok, false);
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void multiRequestBatchWithoutTheGateFailsFast() {
        CpSharedKvConfig gateOff = Workloads.sharedBsGt1(4, 4, 8, null).toBuilder().bsGt1(false).maxRequests(null).build();
        KvGroup group = KvGroup.create(gateOff, PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), MODEL, false);
        PrefillBatch batch = Workloads.written(group, List.of(new PrefillRequest("a", new int[5], 0), new PrefillRequest("b", new int[6], 0)));
        PrefillBatch out = Flux.just(batch).transform(new MaterializeOperator(group, QuerySampler.NONE)).blockLast();
        for (PrefillBatch.Entry entry : out.entries()) {
            assertThat(entry.failure()).isInstanceOf(CpSharedKvBatchException.class)
                    .hasMessage("CP shared-KV batch size > 1 without --enable-cp-shared-kv-prefill-bs-gt1 (batch of 2)");
        }
        assertThat(group.leakCheck()).isEmpty();
        assertThat(group.physicalPagesInUse()).isZero();
    }

    @Test
    void fullViewEqualsTheReplicatedCopyOnEveryPage() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 2, 8, null);
        KvGroup shared = KvGroup.create(config, PoolLayout.SHARED, PoolCapacity.ofPages(8, 2), MODEL, false);
        KvGroup replicated = KvGroup.create(config, PoolLayout.REPLICATED, PoolCapacity.ofPages(8, 2), MODEL, false);
        List<PrefillRequest> requests = List.of(new PrefillRequest("x", new int[] {1, 2, 3, 4, 5, 6, 7}, 0),
                new PrefillRequest("y", new int[] {9, 8, 7}, 0));
        PrefillBatch a = Workloads.written(shared, requests);
        PrefillBatch b = Workloads.written(replicated, requests);
        FullViewMaterializer sm = new FullViewMaterializer(shared);
        FullViewMaterializer rm = new FullViewMaterializer(replicated);
        List<long[]> sharedTables = a.entries().stream().map(e -> sm.referencedPages(e.state())).toList();
        List<long[]> replicatedTables = b.entries().stream().map(e -> rm.referencedPages(e.state())).toList();
        assertThat(sharedTables.get(0)).containsExactly(1, 2, 3, 4);
        FullView sv = sm.gather(sharedTables);
        FullView rv = rm.gather(replicatedTables);
        assertThat(sv.referencedPages()).containsExactly(rv.referencedPages());
        for (int l = 0; l < 2; l++) {
            assertThat(sv.store().readLayer(l, KvComponent.MLA)).isEqualTo(rv.store().readLayer(l, KvComponent.MLA));
            assertThat(sv.store().readLayer(l, KvComponent.INDEX)).isEqualTo(rv.store().readLayer(l, KvComponent.INDEX));
        }
        // the view is rank-independent (I-MAT-2): building it again gives the same bytes
        assertThat(sm.gather(sharedTables).store().readLayer(1, KvComponent.MLA)).isEqualTo(sv.store().readLayer(1, KvComponent.MLA));
    }

    /**
     * The second mode: reading in place through the rank pools' virtual view maps every logical
     * page to its owner's page there (stride per rank), gathers nothing and frees nothing; without
     * a virtual view, or with replicated KV, it is refused by name.
     */
    @Test
    void readingInPlaceMapsEveryPageToItsOwnersPageInTheVirtualView() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 2, 8, null);
        int stride = 10;
        org.kvflow.pages.PageStore virtual = org.kvflow.pages.PageStore.onHeap("virtual view", MODEL.layout(), 2, 4 * stride);
        org.kvflow.pages.RankPools sideBySide = new org.kvflow.pages.RankPools() {
            @Override
            public List<org.kvflow.pages.PageStore> open(org.kvflow.pages.PageMemory memory, org.kvflow.core.model.KvLayout kv,
                                                                 int ranks, int pageSize, int pagesPerRank) {
                return org.kvflow.pages.RankPools.inProcess().open(memory, kv, ranks, pageSize, pagesPerRank);
            }

            @Override
            public java.util.Optional<org.kvflow.pages.PageStore> virtualView() {
                return java.util.Optional.of(virtual);
            }

            @Override
            public void close() {
            }
        };
        KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(8, 2)).model(MODEL).rankPools(sideBySide).build();
        List<PrefillRequest> requests = List.of(new PrefillRequest("x", new int[] {1, 2, 3, 4, 5, 6, 7}, 0),
                new PrefillRequest("y", new int[] {9, 8, 7, 6, 5}, 0));
        PrefillBatch batch = Workloads.written(group, requests);
        long[] local = java.util.stream.LongStream.range(0, 8).toArray();
        for (int r = 0; r < 4; r++) { // what mapping the ranks' pools side by side shows
            int rank = r;
            virtual.copyPagesFrom(group.stores().rank(r), local, java.util.Arrays.stream(local).map(k -> rank * stride + k).toArray());
        }
        FullViewMaterializer gathering = new FullViewMaterializer(group);
        FullViewMaterializer inPlace = new FullViewMaterializer(group, true);
        List<long[]> tables = batch.entries().stream().map(e -> gathering.referencedPages(e.state())).toList();
        FullView gathered = gathering.gather(tables);
        FullView read = inPlace.gather(tables);
        assertThat(read.store()).as("the virtual view itself, counted as the stage's").isSameAs(virtual.countedAs(MaterializeOperator.STAGE));
        assertThat(read.referencedPages()).containsExactly(gathered.referencedPages());
        for (long page : read.referencedPages()) {
            assertThat(read.viewPage(page)).isEqualTo(group.ownership().owner((int) page) * stride + group.stores().physicalPage((int) page));
            for (KvComponent c : KvComponent.values()) {
                for (int l = 0; l < 2; l++) {
                    assertThat(read.store().readPage(l, c, read.viewPage(page))).isEqualTo(gathered.store().readPage(l, c, gathered.viewPage(page)));
                }
            }
        }
        read.close();
        assertThat(virtual.readPage(KvComponent.MLA, 0)).as("closing a view read in place frees nothing").isNotNull();

        KvGroup plain = KvGroup.create(config, PoolLayout.SHARED, PoolCapacity.ofPages(8, 2), MODEL, false);
        PrefillBatch plainBatch = Workloads.written(plain, requests);
        List<long[]> plainTables = plainBatch.entries().stream().map(e -> gathering.referencedPages(e.state())).toList();
        assertThatThrownBy(() -> new FullViewMaterializer(plain, true).gather(plainTables)).isInstanceOf(IllegalStateException.class)
                .hasMessage("reading in place needs rank pools mapped side by side (rank processes with shareable pools)");
        assertThatThrownBy(() -> plain.stores().virtualPage(1)).isInstanceOf(IllegalStateException.class)
                .hasMessage("the rank pools (in-process pools) have no virtual view");
        KvGroup replicated = KvGroup.create(config, PoolLayout.REPLICATED, PoolCapacity.ofPages(8, 2), MODEL, false);
        assertThatThrownBy(() -> new FullViewMaterializer(replicated, true).gather(List.of(new long[] {1}))).isInstanceOf(IllegalStateException.class)
                .hasMessage("reading in place needs shared KV: replicated ranks hold every page already");
    }

    /** Debug mode (contract §12): the full view is compared with a replicated reference, so a flipped owner byte fails its request. */
    @Test
    void debugModeFindsAnOwnerPageThatDiffersFromTheReplicatedReference() {
        for (boolean debug : new boolean[] {false, true}) {
            String before = System.setProperty("cpskv.debug", Boolean.toString(debug));
            try {
                KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), MODEL, false);
                long checks = DebugMode.checksRun();
                int[] tokens = new int[13];
                java.util.Arrays.setAll(tokens, i -> 100 + i);
                PrefillBatch batch = Workloads.written(group, List.of(new PrefillRequest("r", tokens, 0)));
                RequestState state = batch.entries().getFirst().state();
                assertThat(group.stores().reference() != null).isEqualTo(debug);
                assertThat(DebugMode.checksRun() - checks).as("owner-write and page-group checks").isEqualTo(debug ? 13 + 1 : 0);
                int page = (int) (state.loc(4) / 4); // the request's second page
                PageStore owner = group.stores().rank(group.ownership().owner(page));
                long at = group.stores().physicalPage(page) * owner.mlaPageBytes() + 3;
                byte[] flipped = owner.readBytes(1, KvComponent.MLA, at, 1);
                flipped[0] ^= 1;
                owner.writeBytes(1, KvComponent.MLA, at, flipped);
                PrefillBatch out = Flux.just(batch).transform(new MaterializeOperator(group, QuerySampler.NONE)).blockLast();
                if (debug) {
                    assertThat(out.entries().getFirst().failure()).isInstanceOf(DiagnosticCheckException.class).hasMessage("diagnostic check failed: full view page 1"
                            + " (logical page " + page + ", owner rank " + group.ownership().owner(page) + ") differs from the replicated reference in layer 1");
                    assertThat(state.isReleased()).isTrue();
                } else {
                    assertThat(out.entries().getFirst().failure()).as("without diagnostics the flipped byte goes unseen").isNull();
                    group.release(state, false);
                }
                assertThat(group.leakCheck()).isEmpty();
            } finally {
                if (before == null) {
                    System.clearProperty("cpskv.debug");
                } else {
                    System.setProperty("cpskv.debug", before);
                }
            }
        }
    }
}

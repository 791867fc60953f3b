package org.kvflow.operators.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;
import org.kvflow.model.synthetic.SyntheticModel;

/** The transfer stage's and the decode receiver's rules at their boundaries: digests, counts, the replicated path, failures. */
class TransferContractTest {
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.BF16, 2);

    private static int[] tokens(int n) {
        int[] t = new int[n];
        Arrays.setAll(t, i -> 11 + i);
        return t;
    }

    private static void flip(PageStore store, int layer, KvComponent component, long offset) {
        byte[] b = store.readBytes(layer, component, offset, 1);
        b[0] ^= 1;
        store.writeBytes(layer, component, offset, b);
    }

    /** Two receivers holding the same rows under other page ids give the same digest; only valid rows count. */
    @Test
    void aDigestCoversTheValidRowsOfEveryLayerAndNothingElse() {
        PageStore source = PageStore.onHeap("prefill rank", MODEL.layout(), 4, 3);
        for (int l = 0; l < 2; l++) {
            byte[] mla = new byte[3 * source.mlaPageBytes()];
            byte[] index = new byte[3 * source.indexPageBytes()];
            Arrays.fill(mla, (byte) (3 + l));
            Arrays.fill(index, (byte) (7 + l));
            source.writeBytes(l, KvComponent.MLA, 0, mla);
            source.writeBytes(l, KvComponent.INDEX, 0, index);
        }
        DecodeReceiver a = new DecodeReceiver(16, 4, MODEL.layout());
        DecodeReceiver b = new DecodeReceiver(16, 4, MODEL.layout());
        b.open("pad", 5, 1); // b's pages for "r" come after these
        long[] da = a.open("r", 3, 1);
        long[] db = b.open("r", 3, 1);
        assertThat(da).isNotEqualTo(db);
        a.accept("r", 0, new long[] {0, 1, 2}, new PageRun(0, da[0], 3).dst(), source);
        b.accept("r", 0, new long[] {0, 1, 2}, new PageRun(0, db[0], 3).dst(), source);
        assertThat(a.digest("r", 10)).isEqualTo(b.digest("r", 10));
        long whole = a.digest("r", 10);
        PageStore kv = a.store();
        int row = MODEL.layout().mlaRowBytes();
        flip(kv, 1, KvComponent.MLA, (int) da[2] * kv.mlaPageBytes() + 3 * row); // token 11: beyond seqLen 10
        assertThat(a.digest("r", 10)).as("a row past seqLen").isEqualTo(whole);
        flip(kv, 1, KvComponent.MLA, (int) da[2] * kv.mlaPageBytes() + row); // token 9: valid
        assertThat(a.digest("r", 10)).isNotEqualTo(whole);
        flip(kv, 1, KvComponent.MLA, (int) da[2] * kv.mlaPageBytes() + row);
        flip(kv, 0, KvComponent.INDEX, (int) da[1] * kv.indexPageBytes()); // token 4's index code
        assertThat(a.digest("r", 10)).isNotEqualTo(whole);
        flip(kv, 0, KvComponent.INDEX, (int) da[1] * kv.indexPageBytes());
        flip(kv, 1, KvComponent.INDEX, (int) da[0] * kv.indexPageBytes() + 4 * MODEL.dims().index()); // token 0's scale
        assertThat(a.digest("r", 10)).isNotEqualTo(whole);
        assertThatThrownBy(() -> a.digest("ghost", 1)).hasMessage("transfer of request ghost rejected: unknown request");
    }

    @Test
    void aReceiverCountsAndBoundsWhatItHolds() {
        DecodeReceiver r = new DecodeReceiver(8, 4, MODEL.layout());
        assertThat(r.pageSize()).isEqualTo(4);
        assertThat(r.layout()).isEqualTo(MODEL.layout());
        assertThat(r.capacityPages()).isEqualTo(7);
        assertThat(r.open("full", 7, 3)).hasSize(7);
        assertThat(r.openSessions()).isEqualTo(1);
        assertThat(r.incompleteSessions()).isEqualTo(1);
        r.complete("full", 2);
        r.complete("full", 0);
        assertThat(r.incompleteSessions()).isEqualTo(1);
        r.complete("full", 1);
        assertThat(r.incompleteSessions()).isZero();
        r.release("full");
        assertThatThrownBy(() -> r.open("more", 8, 1)).hasMessage("transfer of request more rejected: 8 pages outside [1, 7]");
        assertThat(r.open("one", 1, 1)).hasSize(1);
        assertThat(r.pages("one")).hasSize(1);
        assertThatThrownBy(() -> r.pages("ghost")).hasMessage("transfer of request ghost rejected: unknown request");
        assertThat(new TransferRejectedException("x", "why").requestId()).isEqualTo("x");
    }

    @Test
    void theReplicatedLayoutSendsEachPositionOnceSplitAcrossRanks() {
        KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null).toBuilder().sharedKv(false).bsGt1(false).maxRequests(null).build(),
                PoolLayout.REPLICATED, PoolCapacity.ofPages(16, 4), MODEL, false);
        PrefillBatch batch = Workloads.written(group, List.of(new PrefillRequest("r", tokens(21), 0)));
        List<Integer> ranksUsed = new ArrayList<>();
        DecodeReceiver decode = new DecodeReceiver(64, 4, MODEL.layout());
        TransferBackend counting = new DelegatingTransferBackend(new InMemoryTransferBackend(decode)) {
            @Override
            public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
                ranksUsed.add(rank);
                return super.send(requestId, rank, run, source);
            }
        };
        List<PrefillResult> results = Flux.just(batch).transform(new TransferOperator(group, counting)).collectList().block();
        assertThat(results).singleElement().isInstanceOfSatisfying(PrefillResult.Completed.class, c -> {
            assertThat(c.pagesSent()).isEqualTo(6);
            assertThat(c.batches()).as("one chunk").isEqualTo(1);
        });
        assertThat(decode.isReady("r")).isTrue();
        assertThat(decode.writtenPages("r")).isEqualTo(6);
        assertThat(ranksUsed).as("every rank sends its share of the positions").contains(0, 1, 2, 3);
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void aFailedSendAbortsTheDecodeSessionAndFreesThePages() {
        KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), MODEL, false);
        PrefillBatch batch = Workloads.written(group, List.of(new PrefillRequest("r", tokens(9), 0)));
        DecodeReceiver decode = new DecodeReceiver(64, 4, MODEL.layout());
        TransferBackend failing = new DelegatingTransferBackend(new InMemoryTransferBackend(decode)) {
            @Override
            public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
                return Mono.error(new TransferRejectedException(requestId, "decode went away"));
            }
        };
        List<PrefillResult> results = Flux.just(batch).transform(new TransferOperator(group, failing)).collectList().block();
        assertThat(results).hasSize(1).first().isInstanceOfSatisfying(PrefillResult.Failed.class,
                f -> assertThat(f.error()).hasMessage("transfer of request r rejected: decode went away"));
        assertThat(decode.openSessions()).as("the decode session was aborted").isZero();
        assertThat(group.leakCheck()).isEmpty();
        assertThat(group.physicalPagesInUse()).isZero();
    }

    @Test
    void aSliceTakesPositionsUpToThePrefillPagesAndTheLastRankOfAReplicatedShare() {
        OwnershipMap cp2 = new OwnershipMap(2, 4);
        int[] pages = {2, 3};
        assertThat(TransferPlanner.plan(0, cp2, pages, new long[] {7, 8}, 0, 2, true).pairs()).hasSize(1);
        assertThat(TransferPlanner.plan(0, cp2, pages, new long[] {7, 8}, 2, 2, true).pairs()).isEmpty();
        assertThatThrownBy(() -> TransferPlanner.plan(0, cp2, pages, new long[] {7, 8}, 0, 3, true))
                .hasMessage("chunk [0, 3) outside the 2 prefill pages");
        assertThatThrownBy(() -> TransferPlanner.plan(0, cp2, pages, new long[] {7, 8}, 2, 1, true))
                .hasMessage("chunk [2, 1) outside the 2 prefill pages");
        assertThatThrownBy(() -> TransferPlanner.plan(0, cp2, pages, new long[] {7, 8}, -1, 1, true))
                .hasMessage("chunk [-1, 1) outside the 2 prefill pages");
        assertThat(TransferPlanner.planAll(cp2, pages, new long[] {7, 8}, 0, 2, false)).hasSize(2)
                .allSatisfy(p -> assertThat(p.complete()).isFalse());
        assertThat(TransferPlanner.replicatedSlice(5, 2, 1)).containsExactly(3, 2);
        assertThat(TransferPlanner.replicatedSlice(4, 2, 1)).containsExactly(2, 2);
        assertThat(TransferPlanner.replicatedSlice(5, 2, 0)).containsExactly(0, 3);
    }
}

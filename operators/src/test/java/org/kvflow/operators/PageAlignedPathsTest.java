package org.kvflow.operators;

import org.kvflow.operators.group.FaultyStage;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.core.validate.PageGroupViolation;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.operators.transfer.TransferOperator;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.HostPrefixSource;

/**
 * The token-to-page paths refuse a request row that is not whole aligned pages (contract §9), each
 * naming the path, the request and the broken group, and fail that request alone: the host-cache
 * load and the PD transfer (MLA and indexer pages go in the same runs). The materialize path has
 * its own test; the HiCache backup path is the journal's (JournalRoundTripTest).
 */
class PageAlignedPathsTest {
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.BF16, 2);

    /** A host cache that holds every page: zeros of the right size. */
    private static final HostPrefixSource EVERY_PAGE = new HostPrefixSource() {
        @Override
        public int loadablePages(List<byte[]> chain, int fromPage) {
            return chain.size() - fromPage;
        }

        @Override
        public byte[] payload(byte[] pageHash, HiCachePool pool) {
            return new byte[Math.toIntExact(MODEL.layerCount() * (pool == HiCachePool.KV ? MODEL.layout().mlaPageBytes(4)
                    : MODEL.layout().indexPageBytes(4)))];
        }
    };

    private static int[] tokens(int n) {
        int[] t = new int[n];
        Arrays.setAll(t, i -> 7 + i);
        return t;
    }

    @Test
    void aHostLoadRefusesARowThatIsNotWholeAlignedPages() {
        KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), MODEL, false,
                EVERY_PAGE);
        PrefillBatch batch = Workloads.owned(group, List.of(new PrefillRequest("ok", tokens(13), 0), new PrefillRequest("bad", tokens(13), 0)),
                8, 8);
        RequestState bad = batch.entries().get(1).state();
        assertThat(bad.hostPages()).isEqualTo(2);
        FaultyStage.corruptLoc(bad, 5, 1); // inside the second host page
        PrefillBatch written = Flux.just(batch).transform(new OwnerWriteOperator(group)).blockLast();
        assertThat(written.entries().get(1).failure()).isInstanceOfSatisfying(PageGroupValidationException.class, e -> {
            assertThat(e.kind()).isEqualTo(PageGroupViolation.NON_CONTIGUOUS);
            assertThat(e.context()).isEqualTo("hicache load req bad pos 1");
        });
        assertThat(bad.isReleased()).isTrue();
        assertThat(written.entries().getFirst().failure()).isNull();
    }

    @Test
    void aTransferRefusesARowThatIsNotWholeAlignedPagesBeforeSendingIt() {
        KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), MODEL, false);
        PrefillBatch batch = Workloads.written(group, List.of(new PrefillRequest("ok", tokens(13), 0), new PrefillRequest("bad", tokens(9), 0)));
        RequestState bad = batch.entries().get(1).state();
        FaultyStage.corruptLoc(bad, 4, 4); // the second page's first loc points into another page
        DecodeReceiver decode = new DecodeReceiver(64, 4, MODEL.layout());
        List<PrefillResult> results = new ArrayList<>();
        Flux.just(batch).transform(new TransferOperator(group, new InMemoryTransferBackend(decode))).doOnNext(results::add).blockLast();
        assertThat(results).filteredOn(r -> r.request().id().equals("bad")).singleElement()
                .isInstanceOfSatisfying(PrefillResult.Failed.class, f -> assertThat(f.error())
                        .isInstanceOfSatisfying(PageGroupValidationException.class, e -> {
                            assertThat(e.kind()).isEqualTo(PageGroupViolation.NON_CONTIGUOUS);
                            assertThat(e.group()).isEqualTo(1);
                            assertThat(e.context()).isEqualTo("pd transfer req bad");
                        }));
        assertThat(bad.isReleased()).isTrue();
        assertThat(decode.writtenPages("bad")).isZero();
        assertThat(decode.isReady("ok")).isTrue();
        assertThat(results).hasSize(2);
        assertThat(group.leakCheck()).isEmpty();
    }
}

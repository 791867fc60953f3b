package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.model.KvModel;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.group.KvGroup;

/** What a request, a model and an admission refusal accept and carry, at their bounds. */
class RequestAndModelContractTest {
    @Test
    void aRequestNeedsTokensAndNoNegativeOne() {
        assertThatThrownBy(() -> new PrefillRequest("r", new int[0], 0)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("request r: no tokens");
        assertThatThrownBy(() -> new PrefillRequest("r", new int[] {4, 0, -1}, 0)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("request r: token 2 is negative: -1");
        PrefillRequest r = new PrefillRequest("r", new int[] {4, 0, 9}, 3);
        assertThat(r.tokenId(2)).isEqualTo(9);
        assertThat(r).hasToString("PrefillRequest[r, 3 tokens]");
    }

    @Test
    void aModelHasAtLeastOneLayerAndKeepsItsSeed() {
        assertThatThrownBy(() -> new SyntheticModel(Workloads.TOY, KvDtype.BF16, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("layers must be >= 1, was 0");
        SyntheticModel one = new SyntheticModel(Workloads.TOY, KvDtype.BF16, 1, 42);
        assertThat(one.layerCount()).isEqualTo(1);
        assertThat(one.seed()).isEqualTo(42);
    }

    @Test
    void aRefusalCarriesWhatWasNeededAndWhatThePoolHolds() {
        AdmissionRejectedException e = new AdmissionRejectedException("r", 300, 240);
        assertThat(e.requestId()).isEqualTo("r");
        assertThat(e.neededTokens()).isEqualTo(300);
        assertThat(e.capacityTokens()).isEqualTo(240);
    }

    @Test
    void aModelBuilderNeedsDimsAndDtypeAndABatchKeepsItsEntryCount() {
        assertThatThrownBy(() -> SyntheticModel.builder().dtype(KvDtype.BF16).build()).isInstanceOf(NullPointerException.class)
                .hasMessage("dims");
        assertThatThrownBy(() -> SyntheticModel.builder().dims(Workloads.TOY).build()).isInstanceOf(NullPointerException.class).hasMessage("dtype");
        SyntheticModel model = SyntheticModel.builder().dims(Workloads.TOY).dtype(KvDtype.BF16).layers(3).seed(9).build();
        assertThat(model.layerCount()).isEqualTo(3);
        assertThat(model.seed()).isEqualTo(9);
        PrefillBatch batch = PrefillBatch.admitted(5, java.util.List.of());
        assertThatThrownBy(() -> batch.withEntries(java.util.List.of(new PrefillBatch.Entry(
                KvGroup.create(Workloads.sharedBsGt1(2, 4, 8, null), org.kvflow.core.pool.PoolLayout.SHARED,
                        org.kvflow.core.pool.PoolCapacity.ofPages(8, 4), KvModel.pagesOnly(), false).track(new PrefillRequest("x", new int[] {1}, 0)), 0, 1, true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("batch 5 has 0 entries, not 1");
    }
}

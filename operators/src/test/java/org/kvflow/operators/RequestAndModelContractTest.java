package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;

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
        assertThatThrownBy(() -> new KvModel(Workloads.TOY, KvDtype.BF16, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("layers must be >= 1, was 0");
        KvModel one = new KvModel(Workloads.TOY, KvDtype.BF16, 1, 42);
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
}

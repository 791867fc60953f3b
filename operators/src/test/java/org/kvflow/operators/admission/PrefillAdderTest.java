package org.kvflow.operators.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolCapacity;

/** contract §15 items 11–23 (defaults: ps 64, chunk 8192, max prefill 16384, remTotal 1,000,000, maxNew 100, in-seq CP8). */
class PrefillAdderTest {
    private static final CpSharedKvConfig CP8 = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8).build();
    private static final CpSharedKvConfig SHARED = CP8.toBuilder().sharedKv(true).build();
    private static final CpSharedKvConfig BS_GT1 = SHARED.toBuilder().bsGt1(true).build();

    private static AdmissionCandidate req(String name, long extend) {
        return new AdmissionCandidate(name, extend, 0, 100);
    }

    private static AdmissionPass pass(CpSharedKvConfig config, AdmissionCandidate... queue) {
        return new PrefillAdder(config).pass(1_000_000, 1_000_000, null, Arrays.asList(queue));
    }

    private static AdmissionPass pass(UnaryOperator<CpSharedKvConfig.Builder> change, AdmissionCandidate... queue) {
        return pass(change.apply(BS_GT1.toBuilder()).build(), queue);
    }

    private static List<String> admitted(AdmissionPass p) {
        return p.admitted().stream().map(a -> a.name() + "(" + a.extendLen() + ")").toList();
    }

    @Test
    void ordinaryCpAdmitsOneRequest() {
        AdmissionPass p = pass(CP8, req("A", 5000), req("B", 300));
        assertThat(admitted(p)).containsExactly("A(5000)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void bsGt1IsNeverAppliedWithoutSharedKv() {
        AdmissionPass p = pass(CP8.toBuilder().bsGt1(true).build(), req("A", 100), req("B", 100));
        assertThat(admitted(p)).containsExactly("A(100)");
    }

    @Test
    void sharedKvWithoutTheFlagKeepsOneRequest() {
        AdmissionPass p = pass(SHARED, req("A", 100), req("B", 100));
        assertThat(admitted(p)).containsExactly("A(100)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void sharedKvWithTheFlagBatchesWholeRequests() {
        AdmissionPass p = pass(BS_GT1, req("A", 5000), req("B", 300));
        assertThat(admitted(p)).containsExactly("A(5000)", "B(300)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.END);
        assertThat(p.chunked()).isNull();
    }

    @Test
    void maxRequestsCap() {
        AdmissionPass p = pass(b -> b.maxRequests(2L), req("A", 1000), req("B", 1000), req("C", 1000));
        assertThat(admitted(p)).containsExactly("A(1000)", "B(1000)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void maxExtendTokensCountsPageCeiledLengths() {
        AdmissionPass p = pass(b -> b.maxExtendTokens(2048L), req("A", 1000), req("B", 1000), req("C", 1000));
        assertThat(admitted(p)).containsExactly("A(1000)", "B(1000)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
        AdmissionPass all = pass(b -> b.maxExtendTokens(3072L), req("A", 1000), req("B", 1000), req("C", 1000));
        assertThat(admitted(all)).containsExactly("A(1000)", "B(1000)", "C(1000)");
        assertThat(all.stop()).isEqualTo(AdmissionStop.END);
    }

    @Test
    void extendCapNeverBlocksOrTruncatesTheFirstRequest() {
        AdmissionPass p = pass(b -> b.maxExtendTokens(4096L), req("A", 10_000));
        assertThat(admitted(p)).containsExactly("A(8192)");
        assertThat(p.chunked()).isEqualTo("A");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void secondRequestIsChunkedToTheRemainingPageAlignedBudget() {
        AdmissionPass p = pass(BS_GT1, req("A", 3000), req("B", 6000));
        assertThat(admitted(p)).containsExactly("A(3000)", "B(5184)");
        assertThat(p.chunked()).isEqualTo("B");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void pageCeiledLengthFillsTheChunkBudget() {
        AdmissionPass p = pass(BS_GT1, req("A", 8190));
        assertThat(admitted(p)).containsExactly("A(8190)");
        assertThat(p.chunked()).isNull();
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void oneTokenOverTheChunkIsChunked() {
        AdmissionPass p = pass(BS_GT1, req("A", 8193));
        assertThat(admitted(p)).containsExactly("A(8192)");
        assertThat(p.chunked()).isEqualTo("A");
    }

    @Test
    void decodeReservationCountsAgainstMemory() {
        AdmissionPass p = new PrefillAdder(BS_GT1).pass(8050, 8050, null, List.of(req("A", 8000)));
        assertThat(p.admitted()).isEmpty();
        assertThat(p.stop()).isEqualTo(AdmissionStop.NO_TOKEN);
    }

    /**
     * Admission sees token counts only (contract §6): the same budget of bytes holds more fp8 tokens
     * than bf16 ones, so the fp8 pool admits more of the same queue, with no dtype in the decision.
     */
    @Test
    void theFp8PoolAdmitsMoreOfTheSameQueueThroughTokenCountsAlone() {
        ModelShape shape = ModelShape.DEEPSEEK_V32.withLayers(4);
        KvPools fp8 = KvPools.shared(8, PoolCapacity.fromBudget(4L << 20, new KvLayout(shape, KvDtype.FP8_E4M3), 64));
        KvPools bf16 = KvPools.shared(8, PoolCapacity.fromBudget(4L << 20, new KvLayout(shape, KvDtype.BF16), 64));
        assertThat(fp8.availableTokens()).isGreaterThan(bf16.availableTokens());
        List<AdmissionCandidate> big = List.of(req("A", 3000), req("B", 3000), req("C", 3000));
        AdmissionPass onFp8 = new PrefillAdder(BS_GT1).pass(fp8.availableTokens(), fp8.availableTokens(), null, big);
        AdmissionPass onBf16 = new PrefillAdder(BS_GT1).pass(bf16.availableTokens(), bf16.availableTokens(), null, big);
        assertThat(admitted(onFp8)).containsExactly("A(3000)", "B(3000)", "C(2176)");
        assertThat(admitted(onBf16)).containsExactly("A(3000)");
        assertThat(onBf16.stop()).isEqualTo(AdmissionStop.NO_TOKEN);
    }

    @Test
    void capacityExampleOfSpec63a() {
        // 1 MiB, 4 layers, ps 4, cp 4: 332 vs 204 logical pages; A(900) fits fp8 and gets NO_TOKEN on bf16.
        CpSharedKvConfig toy = BS_GT1.toBuilder().cpSize(4).pageSize(4).build();
        ModelShape shape = ModelShape.DEEPSEEK_V32.withLayers(4);
        KvPools fp8 = KvPools.shared(4, PoolCapacity.fromBudget(1 << 20, new KvLayout(shape, KvDtype.FP8_E4M3), 4));
        KvPools bf16 = KvPools.shared(4, PoolCapacity.fromBudget(1 << 20, new KvLayout(shape, KvDtype.BF16), 4));
        AdmissionCandidate a = new AdmissionCandidate("A", 900, 0, 0);
        assertThat(new PrefillAdder(toy).pass(fp8.availableTokens(), fp8.availableTokens(), null, List.of(a)).admitted()).hasSize(1);
        assertThat(new PrefillAdder(toy).pass(bf16.availableTokens(), bf16.availableTokens(), null, List.of(a)).stop())
                .isEqualTo(AdmissionStop.NO_TOKEN);
    }

    @Test
    void chunkedRequestInFlightComesFirstAndHoldsTheCpGate() {
        AdmissionPass p = new PrefillAdder(SHARED).pass(1_000_000, 1_000_000,
                new AdmissionCandidate("X", 3000, 0, 0), List.of(req("B", 100)));
        assertThat(admitted(p)).containsExactly("X(3000)");
        assertThat(p.chunked()).isNull();
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void chunkedRequestLargerThanTheChunkStaysChunked() {
        AdmissionPass p = new PrefillAdder(BS_GT1).pass(1_000_000, 1_000_000,
                new AdmissionCandidate("X", 20_000, 0, 0), List.of(req("B", 100)));
        assertThat(admitted(p)).containsExactly("X(8192)");
        assertThat(p.chunked()).isEqualTo("X");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void aChunkedRequestWithChunkedPrefillOffIsRefusedByName() {
        PrefillAdder adder = new PrefillAdder(BS_GT1.toBuilder().chunkedPrefillSize(null).build());
        assertThatThrownBy(() -> adder.pass(1_000_000, 1_000_000, new AdmissionCandidate("X", 20_000, 0, 0), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a chunked request (X) needs chunked prefill enabled");
    }

    @Test
    void chunkedRequestFallsBackToTheChunkBudgetWhenMemoryIsGone() {
        AdmissionPass p = new PrefillAdder(BS_GT1).pass(0, 0, new AdmissionCandidate("X", 20_000, 0, 0), List.of());
        assertThat(admitted(p)).containsExactly("X(8192)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.END);
    }

    @Test
    void hostHitShrinksTheAdmittedExtend() {
        AdmissionPass p = pass(BS_GT1, new AdmissionCandidate("A", 5000, 4096, 0));
        assertThat(admitted(p)).containsExactly("A(904)");
    }

    @Test
    void hostHitBelowTheLoadBackThresholdIsIgnored() {
        CpSharedKvConfig ps4 = BS_GT1.toBuilder().pageSize(4).build();
        AdmissionPass p = pass(ps4, new AdmissionCandidate("A", 100, 8, 0));
        assertThat(admitted(p)).containsExactly("A(100)");
    }

    @Test
    void inputBudgetOnlyStopsLaterRequests() {
        CpSharedKvConfig small = BS_GT1.toBuilder().maxPrefillTokens(1000).chunkedPrefillSize(null).build();
        AdmissionPass p = pass(small, req("A", 5000), req("B", 10));
        assertThat(admitted(p)).containsExactly("A(5000)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void generalPrefillMaxRequests() {
        AdmissionPass p = pass(b -> b.prefillMaxRequests(1L), req("A", 10), req("B", 10));
        assertThat(admitted(p)).containsExactly("A(10)");
    }

    @Test
    void emptyQueueEnds() {
        assertThat(pass(BS_GT1).stop()).isEqualTo(AdmissionStop.END);
    }
}

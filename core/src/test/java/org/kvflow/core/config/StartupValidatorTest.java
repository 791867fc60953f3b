package org.kvflow.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;

/** contract §10 and §15 items 31, 36–39. */
class StartupValidatorTest {
    /** A valid CP8 shared-KV prefill config to break one field at a time. */
    private static final CpSharedKvConfig SHARED = CpSharedKvConfig.DEFAULTS.toBuilder()
            .cpSize(8).sharedKv(true).disaggregationMode(DisaggregationMode.PREFILL).build();

    private static List<String> codes(UnaryOperator<CpSharedKvConfig.Builder> change) {
        return StartupValidator.validate(change.apply(SHARED.toBuilder()).build()).errors().stream()
                .map(ConfigIssue::code).toList();
    }

    private static HiCacheConfig hicache(HiCacheStorageBackend storage, HiCacheLayout layout, HiCacheIoBackend io) {
        return new HiCacheConfig(true, storage, layout, io, WritePolicy.WRITE_THROUGH, null);
    }

    @Test
    void defaultsAndTheSharedBaselinePass() {
        assertThat(StartupValidator.validate(CpSharedKvConfig.DEFAULTS).ok()).isTrue();
        assertThat(codes(b -> b)).isEmpty();
    }

    @Test
    void eachCpCheckHasItsCode() {
        assertThat(codes(b -> b.cpSize(1))).containsExactly("E-CP-1");
        assertThat(codes(b -> b.model(ModelKind.MLA))).containsExactly("E-CP-2");
        assertThat(codes(b -> b.model(ModelKind.MHA))).containsExactly("E-CP-2");
        assertThat(codes(b -> b.split(SplitMode.ROUND_ROBIN_SPLIT))).containsExactly("E-CP-3");
        assertThat(codes(b -> b.split(SplitMode.NONE))).containsExactly("E-CP-4");
        assertThat(codes(b -> b.hisparse(true))).containsExactly("E-CP-5");
        assertThat(codes(b -> b.cpRanksSameNode(false))).containsExactly("E-CP-6");
        assertThat(codes(b -> b.pageSize(32))).containsExactly("E-CP-7");
        assertThat(codes(b -> b.model(ModelKind.TOY_MLA).pageSize(48).disaggregationMode(DisaggregationMode.NULL)))
                .containsExactly("E-CP-7");
        assertThat(codes(b -> b.model(ModelKind.TOY_MLA).pageSize(4))).containsExactly("E-CP-8");
    }

    @Test
    void toyMlaIsExemptFromTheModelCheckAndTakesAnyPowerOfTwo() {
        assertThat(codes(b -> b.model(ModelKind.TOY_MLA).pageSize(1).disaggregationMode(DisaggregationMode.NULL))).isEmpty();
    }

    @Test
    void roundRobinWithSharedKvIsRejected() {
        ValidationReport report = StartupValidator.validate(SHARED.toBuilder().split(SplitMode.ROUND_ROBIN_SPLIT).build());
        assertThat(report.errors().getFirst().message())
                .contains("round-robin CP shared KV is not wired for materialization/PD transfer");
    }

    @Test
    void admissionChecks() {
        assertThat(StartupValidator.validate(CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8).bsGt1(true).build())
                .errors().stream().map(ConfigIssue::code)).containsExactly("E-ADM-1");
        assertThat(codes(b -> b.bsGt1(true).maxRequests(0L))).containsExactly("E-ADM-2");
        assertThat(codes(b -> b.bsGt1(true).maxExtendTokens(100L))).containsExactly("E-ADM-2");
        assertThat(codes(b -> b.bsGt1(true).maxExtendTokens(0L))).containsExactly("E-ADM-2");
        assertThat(codes(b -> b.bsGt1(true).maxExtendTokens(128L).maxRequests(1L))).isEmpty();
        assertThat(codes(b -> b.chunkedPrefillSize(32L))).containsExactly("E-ADM-3");
        assertThat(codes(b -> b.chunkedPrefillSize(null))).isEmpty();
        assertThat(codes(b -> b.maxRequests(4L))).containsExactly("E-ADM-4");
        assertThat(codes(b -> b.maxExtendTokens(4096L))).containsExactly("E-ADM-4");
    }

    @Test
    void bothCapProblemsGiveOneIssueNamingBoth() {
        List<ConfigIssue> errors = StartupValidator.validate(SHARED.toBuilder().bsGt1(true).maxRequests(0L)
                .maxExtendTokens(65L).build()).errors();
        assertThat(errors).hasSize(1);
        assertThat(errors.getFirst().message()).contains("must be ≥1 (maxRequests=0)")
                .contains("must be a positive multiple of page_size (maxExtendTokens=65, pageSize=64)");
    }

    @ParameterizedTest
    @EnumSource(value = TransferBackendKind.class, names = {"NIXL", "MORI", "ASCEND", "FAKE"})
    void nonFilteringBackendsAreRejectedForSharedPrefill(TransferBackendKind backend) {
        assertThat(codes(b -> b.transferBackend(backend))).containsExactly("E-PD-1");
        assertThat(codes(b -> b.transferBackend(backend).disaggregationMode(DisaggregationMode.DECODE))).isEmpty();
    }

    @Test
    void filteringBackendsPassAndAllRanksMustTransfer() {
        assertThat(codes(b -> b.transferBackend(TransferBackendKind.TCP))).isEmpty();
        assertThat(codes(b -> b.allCpRanksTransfer(false))).containsExactly("E-PD-2");
        assertThat(codes(b -> b.allCpRanksTransfer(false).disaggregationMode(DisaggregationMode.NULL))).isEmpty();
    }

    @Test
    void everyFailureIsReportedInSpecOrder() {
        CpSharedKvConfig bad = SHARED.toBuilder().cpSize(1).split(SplitMode.ROUND_ROBIN_SPLIT).pageSize(16)
                .chunkedPrefillSize(8L).transferBackend(TransferBackendKind.NIXL).allCpRanksTransfer(false)
                .hicache(hicache(HiCacheStorageBackend.FILE, HiCacheLayout.PAGE_HEAD, HiCacheIoBackend.KERNEL)).build();
        ValidationReport report = StartupValidator.validate(bad);
        assertThat(report.errors()).extracting(ConfigIssue::code)
                .containsExactly("E-CP-1", "E-CP-3", "E-CP-7", "E-ADM-3", "E-PD-1", "E-PD-2", "E-HC-1");
        assertThatThrownBy(report::orThrow).isInstanceOfSatisfying(ConfigValidationException.class, e -> {
            assertThat(e.code()).isEqualTo("E-CP-1");
            assertThat(e.errors()).hasSize(7);
            assertThat(e.getMessage()).startsWith("7 startup checks failed: [E-CP-1: ");
        });
    }

    @Test
    void sharedKvHiCacheMatrixCells() {
        HiCacheStorageBackend none = HiCacheStorageBackend.NONE;
        HiCacheStorageBackend file = HiCacheStorageBackend.FILE;
        HiCacheStorageBackend mooncake = HiCacheStorageBackend.MOONCAKE;
        HiCacheIoBackend kernel = HiCacheIoBackend.KERNEL;
        HiCacheIoBackend direct = HiCacheIoBackend.DIRECT;
        assertThat(codes(b -> b.hicache(hicache(none, HiCacheLayout.LAYER_FIRST, kernel)))).isEmpty();
        assertThat(codes(b -> b.hicache(hicache(file, HiCacheLayout.PAGE_FIRST, kernel)))).isEmpty();
        assertThat(codes(b -> b.hicache(hicache(mooncake, HiCacheLayout.PAGE_FIRST_DIRECT, direct)))).isEmpty();
        assertThat(codes(b -> b.hicache(hicache(none, HiCacheLayout.PAGE_FIRST_DIRECT, kernel)))).containsExactly("E-HC-2");
        assertThat(codes(b -> b.hicache(hicache(mooncake, HiCacheLayout.LAYER_FIRST, kernel)))).containsExactly("E-HC-3");
        assertThat(codes(b -> b.hicache(hicache(file, HiCacheLayout.LAYER_FIRST, direct)))).containsExactly("E-HC-3");
        assertThat(codes(b -> b.hicache(hicache(none, HiCacheLayout.PAGE_HEAD, direct)))).containsExactly("E-HC-1");
        for (HiCacheStorageBackend other : List.of(HiCacheStorageBackend.HF3FS, HiCacheStorageBackend.NIXL,
                HiCacheStorageBackend.AIBRIX, HiCacheStorageBackend.EIC, HiCacheStorageBackend.DYNAMIC)) {
            for (HiCacheLayout layout : HiCacheLayout.values()) {
                assertThat(codes(b -> b.hicache(hicache(other, layout, kernel)))).containsExactly("E-HC-4");
            }
        }
    }

    @Test
    void disabledHiCacheIsNotChecked() {
        HiCacheConfig off = new HiCacheConfig(false, HiCacheStorageBackend.EIC, HiCacheLayout.PAGE_HEAD,
                HiCacheIoBackend.KERNEL, WritePolicy.WRITE_BACK, 1L);
        assertThat(codes(b -> b.hicache(off).devicePoolTokens(100L))).isEmpty();
    }

    @Test
    void hostPoolMustBeLargerThanTheLogicalDevicePool() {
        HiCacheConfig small = new HiCacheConfig(true, HiCacheStorageBackend.NONE, HiCacheLayout.PAGE_FIRST,
                HiCacheIoBackend.KERNEL, WritePolicy.WRITE_THROUGH, 1000L);
        assertThat(codes(b -> b.hicache(small).devicePoolTokens(1000L))).containsExactly("E-HC-5");
        assertThat(codes(b -> b.hicache(small).devicePoolTokens(999L))).isEmpty();
        assertThat(codes(b -> b.hicache(small))).isEmpty();
    }

    @Test
    void nonSharedMooncakeLayerFirstIsNormalisedWithAWarning() {
        CpSharedKvConfig plain = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8)
                .hicache(hicache(HiCacheStorageBackend.MOONCAKE, HiCacheLayout.LAYER_FIRST, HiCacheIoBackend.KERNEL)).build();
        ValidationReport report = StartupValidator.validate(plain);
        assertThat(report.ok()).isTrue();
        assertThat(report.normalized().hicache().layout()).isEqualTo(HiCacheLayout.PAGE_FIRST);
        assertThat(report.warnings()).extracting(ConfigIssue::code).containsExactly("W-HC-NORM");

        CpSharedKvConfig direct = plain.toBuilder()
                .hicache(hicache(HiCacheStorageBackend.MOONCAKE, HiCacheLayout.LAYER_FIRST, HiCacheIoBackend.DIRECT)).build();
        assertThat(StartupValidator.validate(direct).normalized().hicache().layout()).isEqualTo(HiCacheLayout.PAGE_FIRST_DIRECT);
    }

    @Test
    void nonSharedPageFirstDirectSwitchesIoToDirect() {
        CpSharedKvConfig plain = CpSharedKvConfig.DEFAULTS.toBuilder()
                .hicache(hicache(HiCacheStorageBackend.NONE, HiCacheLayout.PAGE_FIRST_DIRECT, HiCacheIoBackend.KERNEL)).build();
        ValidationReport report = StartupValidator.validate(plain);
        assertThat(report.normalized().hicache().ioBackend()).isEqualTo(HiCacheIoBackend.DIRECT);
        assertThat(report.warnings()).hasSize(1);
        assertThat(report.normalized().hicache().layout()).isEqualTo(HiCacheLayout.PAGE_FIRST_DIRECT);
    }

    @Test
    void sharedKvIsValidatedNotNormalised() {
        CpSharedKvConfig config = SHARED.toBuilder()
                .hicache(hicache(HiCacheStorageBackend.NONE, HiCacheLayout.PAGE_FIRST_DIRECT, HiCacheIoBackend.KERNEL)).build();
        ValidationReport report = StartupValidator.validate(config);
        assertThat(report.warnings()).isEmpty();
        assertThat(report.normalized()).isEqualTo(config);
        assertThat(report.errors()).extracting(ConfigIssue::code).containsExactly("E-HC-2");
    }
}

package org.kvflow.samples.cli;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.HiCacheIoBackend;
import org.kvflow.core.config.HiCacheLayout;
import org.kvflow.core.config.HiCacheStorageBackend;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;
import picocli.CommandLine.Option;

/**
 * CLI flags that override a loaded {@link CpSharedKvConfig}, one per config field, named as
 * SGLang's server arguments where one exists. Only flags given on the command line change anything.
 */
final class ConfigOverrides {
    @Option(names = {"--cp", "--attn-cp-size"}, description = "attn_cp_size") Integer cpSize;
    @Option(names = "--page-size") Integer pageSize;
    @Option(names = "--split", description = "in-seq-split | round-robin-split | none") SplitMode split;
    @Option(names = "--shared-kv", arity = "0..1", fallbackValue = "true") Boolean sharedKv;
    @Option(names = "--enable-cp-shared-kv-prefill-bs-gt1", arity = "0..1", fallbackValue = "true") Boolean bsGt1;
    @Option(names = "--cp-shared-kv-prefill-max-requests") Long maxRequests;
    @Option(names = "--cp-shared-kv-prefill-max-extend-tokens") Long maxExtendTokens;
    @Option(names = "--prefill-max-requests") Long prefillMaxRequests;
    @Option(names = "--chunked-prefill-size", description = "-1 disables chunked prefill") Long chunkedPrefillSize;
    @Option(names = "--max-prefill-tokens") Long maxPrefillTokens;
    @Option(names = "--all-cp-ranks-transfer", arity = "0..1", fallbackValue = "true") Boolean allCpRanksTransfer;
    @Option(names = "--hisparse", arity = "0..1", fallbackValue = "true") Boolean hisparse;
    @Option(names = "--cp-ranks-same-node", arity = "0..1", fallbackValue = "true") Boolean cpRanksSameNode;
    @Option(names = "--kv-cache-dtype", description = "bf16 | fp8_e4m3") KvDtype kvDtype;
    @Option(names = "--disaggregation-mode", description = "null | prefill | decode") DisaggregationMode disaggregationMode;
    @Option(names = "--disaggregation-transfer-backend", description = "mooncake | tcp | nixl | mori | ascend | fake")
    TransferBackendKind transferBackend;
    @Option(names = "--model-kind", description = "nsa-mla | toy-mla | mla | mha") ModelKind model;
    @Option(names = "--device-pool-tokens") Long devicePoolTokens;
    @Option(names = "--enable-hierarchical-cache", arity = "0..1", fallbackValue = "true") Boolean hicacheEnabled;
    @Option(names = "--hicache-storage-backend") HiCacheStorageBackend storageBackend;
    @Option(names = "--hicache-mem-layout") HiCacheLayout layout;
    @Option(names = "--hicache-io-backend") HiCacheIoBackend ioBackend;
    @Option(names = "--hicache-write-policy") WritePolicy writePolicy;
    @Option(names = "--hicache-host-pool-tokens") Long hostPoolTokens;

    /**
     * {@code base} with every given flag applied.
     *
     * @throws MalformedInputException naming the first flag outside the range a config file allows
     */
    CpSharedKvConfig apply(CpSharedKvConfig base) {
        atLeast("--cp", cpSize, 1);
        atLeast("--page-size", pageSize, 1);
        atLeast("--prefill-max-requests", prefillMaxRequests, 0);
        atLeast("--max-prefill-tokens", maxPrefillTokens, 0);
        atLeast("--device-pool-tokens", devicePoolTokens, 0);
        atLeast("--hicache-host-pool-tokens", hostPoolTokens, 0);
        if (chunkedPrefillSize != null && chunkedPrefillSize != -1 && chunkedPrefillSize < 1) {
            throw new MalformedInputException("--chunked-prefill-size", "must be -1 (off) or >= 1, was " + chunkedPrefillSize);
        }
        CpSharedKvConfig.Builder b = base.toBuilder();
        if (cpSize != null) b.cpSize(cpSize);
        if (pageSize != null) b.pageSize(pageSize);
        if (split != null) b.split(split);
        if (sharedKv != null) b.sharedKv(sharedKv);
        if (bsGt1 != null) b.bsGt1(bsGt1);
        if (maxRequests != null) b.maxRequests(maxRequests);
        if (maxExtendTokens != null) b.maxExtendTokens(maxExtendTokens);
        if (prefillMaxRequests != null) b.prefillMaxRequests(prefillMaxRequests);
        if (chunkedPrefillSize != null) b.chunkedPrefillSize(chunkedPrefillSize == -1 ? null : chunkedPrefillSize);
        if (maxPrefillTokens != null) b.maxPrefillTokens(maxPrefillTokens);
        if (allCpRanksTransfer != null) b.allCpRanksTransfer(allCpRanksTransfer);
        if (hisparse != null) b.hisparse(hisparse);
        if (cpRanksSameNode != null) b.cpRanksSameNode(cpRanksSameNode);
        if (kvDtype != null) b.kvDtype(kvDtype);
        if (disaggregationMode != null) b.disaggregationMode(disaggregationMode);
        if (transferBackend != null) b.transferBackend(transferBackend);
        if (model != null) b.model(model);
        if (devicePoolTokens != null) b.devicePoolTokens(devicePoolTokens);
        b.hicache(applyHiCache(base.hicache()));
        return b.build();
    }

    private static void atLeast(String flag, @Nullable Number value, long min) {
        if (value != null && value.longValue() < min) {
            throw new MalformedInputException(flag, "must be >= " + min + ", was " + value);
        }
    }

    private HiCacheConfig applyHiCache(HiCacheConfig h) {
        return h.toBuilder()
                .enabled(or(hicacheEnabled, h.enabled()))
                .storageBackend(or(storageBackend, h.storageBackend()))
                .layout(or(layout, h.layout()))
                .ioBackend(or(ioBackend, h.ioBackend()))
                .writePolicy(or(writePolicy, h.writePolicy()))
                .hostPoolTokens(hostPoolTokens != null ? hostPoolTokens : h.hostPoolTokens())
                .build();
    }

    private static <T> T or(@Nullable T flag, T base) {
        return flag != null ? flag : base;
    }
}

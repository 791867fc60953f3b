package org.kvflow.core.config;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;

/**
 * Everything startup validation (contract §10) and admission (contract §6) read, with the field names and
 * defaults of the scenario format's {@code config} object. Immutable; a value is not necessarily
 * valid: {@link StartupValidator} decides. {@code null} in a nullable field means "unset"
 * ({@code chunkedPrefillSize = null}: chunked prefill disabled).
 *
 * @param cpSize             {@code attn_cp_size}
 * @param pageSize           tokens per page
 * @param bsGt1              {@code --enable-cp-shared-kv-prefill-bs-gt1}
 * @param maxRequests        {@code --cp-shared-kv-prefill-max-requests}
 * @param maxExtendTokens    {@code --cp-shared-kv-prefill-max-extend-tokens}
 * @param prefillMaxRequests general {@code prefill_max_requests}
 * @param devicePoolTokens   logical device pool capacity in tokens, for E-HC-5
 */
public record CpSharedKvConfig(
        int cpSize,
        int pageSize,
        SplitMode split,
        boolean sharedKv,
        boolean bsGt1,
        boolean allCpRanksTransfer,
        boolean hisparse,
        boolean cpRanksSameNode,
        @Nullable Long maxRequests,
        @Nullable Long maxExtendTokens,
        @Nullable Long prefillMaxRequests,
        @Nullable Long chunkedPrefillSize,
        long maxPrefillTokens,
        KvDtype kvDtype,
        DisaggregationMode disaggregationMode,
        TransferBackendKind transferBackend,
        ModelKind model,
        @Nullable Long devicePoolTokens,
        HiCacheConfig hicache) {

    /** The defaults of docs/scenario-format.md: cp 1, page 64, in-seq split, shared KV off, chunk 8192, … */
    public static final CpSharedKvConfig DEFAULTS = new CpSharedKvConfig(1, 64, SplitMode.IN_SEQ_SPLIT, false, false,
            true, false, true, null, null, null, 8192L, 16384L, KvDtype.BF16, DisaggregationMode.NULL,
            TransferBackendKind.MOONCAKE, ModelKind.NSA_MLA, null, HiCacheConfig.DEFAULTS);

    public CpSharedKvConfig {
        Objects.requireNonNull(split, "split");
        Objects.requireNonNull(kvDtype, "kvDtype");
        Objects.requireNonNull(disaggregationMode, "disaggregationMode");
        Objects.requireNonNull(transferBackend, "transferBackend");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(hicache, "hicache");
    }

    /** A builder starting from this config's values. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** "CP in-seq split is on" (contract §6.2 pass rule (b)): {@code cpSize > 1} and in-seq split. */
    public boolean cpInSeqSplitOn() {
        return cpSize > 1 && split == SplitMode.IN_SEQ_SPLIT;
    }

    /** Mutable builder for {@link CpSharedKvConfig}; used by readers and CLI flag overrides. */
    public static final class Builder {
        private int cpSize;
        private int pageSize;
        private SplitMode split;
        private boolean sharedKv;
        private boolean bsGt1;
        private boolean allCpRanksTransfer;
        private boolean hisparse;
        private boolean cpRanksSameNode;
        private @Nullable Long maxRequests;
        private @Nullable Long maxExtendTokens;
        private @Nullable Long prefillMaxRequests;
        private @Nullable Long chunkedPrefillSize;
        private long maxPrefillTokens;
        private KvDtype kvDtype;
        private DisaggregationMode disaggregationMode;
        private TransferBackendKind transferBackend;
        private ModelKind model;
        private @Nullable Long devicePoolTokens;
        private HiCacheConfig hicache;

        private Builder(CpSharedKvConfig c) {
            cpSize = c.cpSize;
            pageSize = c.pageSize;
            split = c.split;
            sharedKv = c.sharedKv;
            bsGt1 = c.bsGt1;
            allCpRanksTransfer = c.allCpRanksTransfer;
            hisparse = c.hisparse;
            cpRanksSameNode = c.cpRanksSameNode;
            maxRequests = c.maxRequests;
            maxExtendTokens = c.maxExtendTokens;
            prefillMaxRequests = c.prefillMaxRequests;
            chunkedPrefillSize = c.chunkedPrefillSize;
            maxPrefillTokens = c.maxPrefillTokens;
            kvDtype = c.kvDtype;
            disaggregationMode = c.disaggregationMode;
            transferBackend = c.transferBackend;
            model = c.model;
            devicePoolTokens = c.devicePoolTokens;
            hicache = c.hicache;
        }

        public Builder cpSize(int v) { cpSize = v; return this; }
        public Builder pageSize(int v) { pageSize = v; return this; }
        public Builder split(SplitMode v) { split = v; return this; }
        public Builder sharedKv(boolean v) { sharedKv = v; return this; }
        public Builder bsGt1(boolean v) { bsGt1 = v; return this; }
        public Builder allCpRanksTransfer(boolean v) { allCpRanksTransfer = v; return this; }
        public Builder hisparse(boolean v) { hisparse = v; return this; }
        public Builder cpRanksSameNode(boolean v) { cpRanksSameNode = v; return this; }
        public Builder maxRequests(@Nullable Long v) { maxRequests = v; return this; }
        public Builder maxExtendTokens(@Nullable Long v) { maxExtendTokens = v; return this; }
        public Builder prefillMaxRequests(@Nullable Long v) { prefillMaxRequests = v; return this; }
        public Builder chunkedPrefillSize(@Nullable Long v) { chunkedPrefillSize = v; return this; }
        public Builder maxPrefillTokens(long v) { maxPrefillTokens = v; return this; }
        public Builder kvDtype(KvDtype v) { kvDtype = v; return this; }
        public Builder disaggregationMode(DisaggregationMode v) { disaggregationMode = v; return this; }
        public Builder transferBackend(TransferBackendKind v) { transferBackend = v; return this; }
        public Builder model(ModelKind v) { model = v; return this; }
        public Builder devicePoolTokens(@Nullable Long v) { devicePoolTokens = v; return this; }
        public Builder hicache(HiCacheConfig v) { hicache = v; return this; }

        public CpSharedKvConfig build() {
            return new CpSharedKvConfig(cpSize, pageSize, split, sharedKv, bsGt1, allCpRanksTransfer, hisparse,
                    cpRanksSameNode, maxRequests, maxExtendTokens, prefillMaxRequests, chunkedPrefillSize,
                    maxPrefillTokens, kvDtype, disaggregationMode, transferBackend, model, devicePoolTokens, hicache);
        }
    }
}

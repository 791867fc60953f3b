package org.kvflow.core.config;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;

/**
 * The startup validation matrix of contract §10. Every check is evaluated; the report lists every
 * failing one in the order of contract §10.1, §10.2, §10.3, each code at most once (a row whose two
 * conditions both fail, like E-ADM-2, gives one issue naming both). Without shared KV, HiCache
 * settings are normalised as upstream does, one {@code W-HC-NORM} warning per change. E-PD-3 and
 * E-PD-4 need the decode peer and belong to the transfer handshake, not here.
 */
public final class StartupValidator {
    private static final Set<TransferBackendKind> NON_FILTERING_BACKENDS = EnumSet.of(
            TransferBackendKind.NIXL, TransferBackendKind.MORI, TransferBackendKind.ASCEND, TransferBackendKind.FAKE);
    private static final Set<HiCacheStorageBackend> SHARED_KV_STORAGE = EnumSet.of(
            HiCacheStorageBackend.NONE, HiCacheStorageBackend.FILE, HiCacheStorageBackend.MOONCAKE);

    private StartupValidator() {}

    /** Runs every check of contract §10 on {@code config}. Never throws for a bad config; see {@link ValidationReport#orThrow()}. */
    public static ValidationReport validate(CpSharedKvConfig config) {
        List<ConfigIssue> errors = new ArrayList<>();
        checkCpAndAdmission(config, errors);
        checkPd(config, errors);
        List<ConfigIssue> warnings = new ArrayList<>();
        CpSharedKvConfig normalized = config;
        HiCacheConfig hicache = config.hicache();
        if (hicache.enabled()) {
            if (config.sharedKv()) {
                checkSharedKvHiCache(hicache, errors);
            } else {
                HiCacheConfig fixed = normalizeHiCache(hicache, warnings);
                normalized = config.toBuilder().hicache(fixed).build();
            }
            checkHostPoolSize(config, errors);
        }
        return new ValidationReport(normalized, warnings, errors);
    }

    private static void checkCpAndAdmission(CpSharedKvConfig c, List<ConfigIssue> errors) {
        boolean shared = c.sharedKv();
        if (shared && c.cpSize() <= 1) {
            errors.add(new ConfigIssue("E-CP-1", "CP shared KV requires attn_cp_size > 1 (cpSize=" + c.cpSize() + ")"));
        }
        if (shared && (c.model() == ModelKind.MLA || c.model() == ModelKind.MHA)) {
            errors.add(new ConfigIssue("E-CP-2", "CP shared KV requires an NSA/DSA MLA model (model="
                    + c.model().wireName() + ")"));
        }
        if (shared && c.split() == SplitMode.ROUND_ROBIN_SPLIT) {
            errors.add(new ConfigIssue("E-CP-3",
                    "round-robin CP shared KV is not wired for materialization/PD transfer (split=round-robin-split)"));
        }
        if (shared && c.cpSize() > 1 && c.split() == SplitMode.NONE) {
            errors.add(new ConfigIssue("E-CP-4", "CP shared KV requires NSA prefill context parallel (in-seq-split) (split=none, cpSize="
                    + c.cpSize() + ")"));
        }
        if (shared && c.hisparse()) {
            errors.add(new ConfigIssue("E-CP-5", "CP shared KV is not supported with hisparse (hisparse=true)"));
        }
        if (shared && !c.cpRanksSameNode()) {
            errors.add(new ConfigIssue("E-CP-6", "CP shared KV requires all CP ranks on the same node (cpRanksSameNode=false)"));
        }
        if (c.model() == ModelKind.NSA_MLA && c.pageSize() != 64) {
            errors.add(new ConfigIssue("E-CP-7", "NSA index buffer requires page_size 64 (pageSize=" + c.pageSize() + ")"));
        } else if (c.model() == ModelKind.TOY_MLA && Integer.bitCount(c.pageSize()) != 1) {
            errors.add(new ConfigIssue("E-CP-7", "toy-mla requires a power-of-two page_size (pageSize=" + c.pageSize() + ")"));
        }
        if (c.model() == ModelKind.TOY_MLA && c.disaggregationMode() != DisaggregationMode.NULL) {
            errors.add(new ConfigIssue("E-CP-8", "toy-mla is for tests; not valid with PD disaggregation (disaggregationMode="
                    + c.disaggregationMode().wireName() + ")"));
        }
        if (c.bsGt1() && !shared) {
            errors.add(new ConfigIssue("E-ADM-1", "--enable-cp-shared-kv-prefill-bs-gt1 requires CP shared KV (sharedKv=false)"));
        }
        List<String> capProblems = new ArrayList<>(2);
        if (c.maxRequests() != null && c.maxRequests() < 1) {
            capProblems.add("--cp-shared-kv-prefill-max-requests must be ≥1 (maxRequests=" + c.maxRequests() + ")");
        }
        Long maxExtend = c.maxExtendTokens();
        if (maxExtend != null && (maxExtend < c.pageSize() || maxExtend % c.pageSize() != 0)) {
            capProblems.add("--cp-shared-kv-prefill-max-extend-tokens must be a positive multiple of page_size (maxExtendTokens="
                    + maxExtend + ", pageSize=" + c.pageSize() + ")");
        }
        if (!capProblems.isEmpty()) {
            errors.add(new ConfigIssue("E-ADM-2", String.join("; ", capProblems)));
        }
        Long chunk = c.chunkedPrefillSize();
        if (chunk != null && chunk < c.pageSize()) {
            errors.add(new ConfigIssue("E-ADM-3", "chunked_prefill_size must be ≥ page_size (chunkedPrefillSize="
                    + chunk + ", pageSize=" + c.pageSize() + ")"));
        }
        if ((c.maxRequests() != null || maxExtend != null) && !c.bsGt1()) {
            errors.add(new ConfigIssue("E-ADM-4", "bs>1 caps have no effect without the bs>1 flag (maxRequests="
                    + c.maxRequests() + ", maxExtendTokens=" + maxExtend + ", bsGt1=false)"));
        }
    }

    private static void checkPd(CpSharedKvConfig c, List<ConfigIssue> errors) {
        boolean sharedPrefill = c.sharedKv() && c.disaggregationMode() == DisaggregationMode.PREFILL;
        if (sharedPrefill && NON_FILTERING_BACKENDS.contains(c.transferBackend())) {
            errors.add(new ConfigIssue("E-PD-1", "CP shared KV requires a transfer backend with owner filtering + "
                    + "logical-page-position selection (mooncake, tcp) (transferBackend=" + c.transferBackend().wireName() + ")"));
        }
        if (sharedPrefill && !c.allCpRanksTransfer()) {
            errors.add(new ConfigIssue("E-PD-2", "CP shared KV prefill requires ALL_CP_RANKS_TRANSFER (allCpRanksTransfer=false)"));
        }
    }

    /** The contract §10.3 matrix: one code per (storage backend, layout, io) cell. */
    private static void checkSharedKvHiCache(HiCacheConfig h, List<ConfigIssue> errors) {
        String cell = " (storageBackend=" + h.storageBackend().wireName() + ", layout=" + h.layout().wireName()
                + ", ioBackend=" + h.ioBackend().wireName() + ")";
        if (!SHARED_KV_STORAGE.contains(h.storageBackend())) {
            errors.add(new ConfigIssue("E-HC-4", "storage backend not validated for CP shared KV" + cell));
        } else if (h.layout() == HiCacheLayout.PAGE_HEAD) {
            errors.add(new ConfigIssue("E-HC-1", "page_head layout is for MHA head splitting; not valid for MLA shared KV" + cell));
        } else if (h.layout() == HiCacheLayout.LAYER_FIRST && h.storageBackend() != HiCacheStorageBackend.NONE) {
            errors.add(new ConfigIssue("E-HC-3", "layer_first cannot store a page as one L3 object under CP shared KV" + cell));
        } else if (h.layout() == HiCacheLayout.PAGE_FIRST_DIRECT && h.ioBackend() != HiCacheIoBackend.DIRECT) {
            errors.add(new ConfigIssue("E-HC-2", "page_first_direct requires hicache io backend direct" + cell));
        }
    }

    /** Upstream's non-shared normalisation (contract §10.3): fixes the layout/io instead of failing. */
    private static HiCacheConfig normalizeHiCache(HiCacheConfig h, List<ConfigIssue> warnings) {
        HiCacheConfig fixed = h;
        if (fixed.storageBackend() == HiCacheStorageBackend.MOONCAKE && fixed.layout() == HiCacheLayout.LAYER_FIRST) {
            HiCacheLayout layout = fixed.ioBackend() == HiCacheIoBackend.DIRECT
                    ? HiCacheLayout.PAGE_FIRST_DIRECT : HiCacheLayout.PAGE_FIRST;
            warnings.add(new ConfigIssue("W-HC-NORM", "hicache layout layer_first -> " + layout.wireName()
                    + " for mooncake storage with io backend " + fixed.ioBackend().wireName()));
            fixed = fixed.toBuilder().layout(layout).build();
        }
        if (fixed.layout() == HiCacheLayout.PAGE_FIRST_DIRECT && fixed.ioBackend() == HiCacheIoBackend.KERNEL) {
            warnings.add(new ConfigIssue("W-HC-NORM", "hicache io backend kernel -> direct for layout page_first_direct"));
            fixed = fixed.toBuilder().ioBackend(HiCacheIoBackend.DIRECT).build();
        }
        return fixed;
    }

    private static void checkHostPoolSize(CpSharedKvConfig c, List<ConfigIssue> errors) {
        Long host = c.hicache().hostPoolTokens();
        Long device = c.devicePoolTokens();
        if (host != null && device != null && host <= device) {
            errors.add(new ConfigIssue("E-HC-5", "host memory must be larger than device memory (hostPoolTokens="
                    + host + ", devicePoolTokens=" + device + ")"));
        }
    }
}

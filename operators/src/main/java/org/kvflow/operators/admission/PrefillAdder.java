package org.kvflow.operators.admission;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;

/**
 * One admission pass of contract §6.2 with pass rules (a)–(d): the chunked request in flight first,
 * then the waiting queue in order until a check stops the pass. Works on token counts only, so
 * bf16 and fp8 pools share this code path (contract §3.4). Pure: {@link #pass} has no side effects.
 */
public final class PrefillAdder {
    /** {@code SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION}. */
    public static final long CLIP_MAX_NEW_TOKENS = 4096;
    /** Host hits shorter than this are ignored (contract §11.2). */
    public static final long LOAD_BACK_THRESHOLD = 10;

    private final CpSharedKvConfig config;

    /**

     * The contract §6 admission rules for one configuration.

     *

     * @param config the configuration whose caps and gate it applies

     */
    public PrefillAdder(CpSharedKvConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * Runs one pass.
     *
     * @param remTotal pool tokens available + evictable − reserved for running decodes
     * @param curRem   the same pool view without the decode reservation
     * @param chunked  the chunked request in flight, or {@code null}
     * @param queue    waiting requests in queue order
     * @return what was admitted, what is chunked, and why the pass stopped
     */
    public AdmissionPass pass(long remTotal, long curRem, @Nullable AdmissionCandidate chunked, List<AdmissionCandidate> queue) {
        if (chunked != null && config.chunkedPrefillSize() == null) {
            throw new IllegalArgumentException("a chunked request (" + chunked.name() + ") needs chunked prefill enabled");
        }
        Pass p = new Pass(remTotal, curRem);
        if (chunked != null) {
            p.addChunked(chunked);
        }
        for (AdmissionCandidate candidate : queue) {
            AdmissionStop stop = p.addOne(candidate);
            if (stop != null) {
                return p.result(stop);
            }
        }
        return p.result(AdmissionStop.END);
    }

    private long ceilPage(long tokens) {
        long ps = config.pageSize();
        return Math.ceilDiv(tokens, ps) * ps;
    }

    private long floorPage(long tokens) {
        long ps = config.pageSize();
        return Math.floorDiv(tokens, ps) * ps;
    }

    private static long decodeReservation(long maxNew) {
        return Math.min(Math.max(maxNew, 0), CLIP_MAX_NEW_TOKENS);
    }

    /** The budgets of one pass (contract §6.1). */
    private final class Pass {
        private long remTotal;
        private long curRem;
        private long remInput = config.maxPrefillTokens();
        private @Nullable Long remChunk = config.chunkedPrefillSize();
        private long admittedExtendPaged;
        private final List<AdmissionPass.Admitted> batch = new ArrayList<>();
        private @Nullable String newChunked;

        Pass(long remTotal, long curRem) {
            this.remTotal = remTotal;
            this.curRem = curRem;
        }

        /** Pass rule (c): the in-flight chunked request is always re-added, first. */
        void addChunked(AdmissionCandidate req) {
            long chunk = Objects.requireNonNull(remChunk);
            long lim = Math.min(chunk, remTotal);
            if (lim <= 0) {
                lim = chunk;
            }
            long ext = Math.min(req.extendLen(), lim);
            long paged = ceilPage(ext);
            take(paged);
            if (ext == req.extendLen()) {
                remTotal -= decodeReservation(req.maxNew());
            } else {
                newChunked = req.name();
            }
            batch.add(new AdmissionPass.Admitted(req.name(), ext));
        }

        /** contract §6.2 steps 1–9; returns the stop reason, or {@code null} to continue. */
        @Nullable AdmissionStop addOne(AdmissionCandidate req) {
            boolean sharedBsGt1 = config.sharedKv() && config.bsGt1();
            if (config.cpInSeqSplitOn() && !sharedBsGt1 && !batch.isEmpty()) {
                return AdmissionStop.OTHER;
            }
            long hostHit = req.hostHitLen() < LOAD_BACK_THRESHOLD ? 0 : req.hostHitLen();
            long extend = req.extendLen() - hostHit;
            if (sharedBsGt1) {
                Long maxRequests = config.maxRequests();
                if (maxRequests != null && batch.size() >= maxRequests) {
                    return AdmissionStop.OTHER;
                }
                Long maxExtend = config.maxExtendTokens();
                if (maxExtend != null && !batch.isEmpty() && admittedExtendPaged + ceilPage(extend) > maxExtend) {
                    return AdmissionStop.OTHER;
                }
            }
            Long prefillMax = config.prefillMaxRequests();
            if (prefillMax != null && batch.size() >= prefillMax) {
                return AdmissionStop.OTHER;
            }
            long reservation = decodeReservation(req.maxNew());
            if (req.extendLen() + reservation >= remTotal) {
                return AdmissionStop.NO_TOKEN;
            }
            long input = ceilPage(extend);
            if (input >= remInput && !batch.isEmpty()) {
                return AdmissionStop.OTHER;
            }
            if (remChunk == null || input <= remChunk) {
                take(input);
                remTotal -= reservation;
                batch.add(new AdmissionPass.Admitted(req.name(), extend));
            } else {
                long trunc = floorPage(remChunk);
                if (trunc <= 0) {
                    return AdmissionStop.OTHER;
                }
                take(trunc);
                newChunked = req.name();
                batch.add(new AdmissionPass.Admitted(req.name(), trunc));
            }
            return budgetState();
        }

        private void take(long tokens) {
            remTotal -= tokens;
            curRem -= tokens;
            remInput -= tokens;
            if (remChunk != null) {
                remChunk -= tokens;
            }
            admittedExtendPaged += tokens;
        }

        private @Nullable AdmissionStop budgetState() {
            if (remTotal <= 0 || curRem <= 0) {
                return AdmissionStop.NO_TOKEN;
            }
            if (remInput <= 0 || (remChunk != null && remChunk <= 0)) {
                return AdmissionStop.OTHER;
            }
            return null;
        }

        AdmissionPass result(AdmissionStop stop) {
            return new AdmissionPass(batch, newChunked, stop);
        }
    }
}

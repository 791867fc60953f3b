package org.kvflow.traffic;

/**
 * Token ids for a trace request, a deterministic function of its blocks' hash ids: token {@code i}
 * of block {@code b} depends on {@code hashIds[b]} and {@code i} alone, so two requests that share
 * leading hash ids share exactly those blocks' tokens (their KV pages hash alike), and a different
 * id at block {@code b} makes token {@code 512·b} the first that differs.
 */
public final class TraceTokens {
    /** Token ids are below this (a vocabulary of the size of DeepSeek V3's). */
    public static final int VOCABULARY = 129_280;

    private TraceTokens() {}

    /**
     * The request's prompt.
     *
     * @param request a trace request
     * @return its {@code inputLength} token ids
     */
    public static int[] of(TraceRequest request) {
        int[] tokens = new int[request.inputLength()];
        for (int t = 0; t < tokens.length; t++) {
            tokens[t] = token(request.hashIds()[t / TraceRequest.BLOCK], t % TraceRequest.BLOCK);
        }
        return tokens;
    }

    /** {@return token {@code position} of the block with hash id {@code hash}} */
    static int token(long hash, int position) {
        long x = hash * 0x9E3779B97F4A7C15L + position * 0xC2B2AE3D27D4EB4FL + 0x165667B19E3779F9L;
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        x = x ^ (x >>> 31);
        return (int) Long.remainderUnsigned(x, VOCABULARY);
    }
}

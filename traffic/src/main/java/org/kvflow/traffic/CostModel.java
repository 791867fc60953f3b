package org.kvflow.traffic;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.kvflow.core.json.JsonDocuments;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.MalformedInputException;

/**
 * A modelled prefill time, so that a run planning pages only predicts time to first token for a GPU
 * deployment. A request's uncached tokens are computed in chunks of {@code chunkTokens}; a chunk of
 * {@code n} new tokens whose keys reach position {@code L} (the chunk included) costs
 * <pre>
 *   layers · ( n / cp · (secondsPerToken + secondsPerTokenPerContextToken · L)
 *            + (shared ? sharedSecondsPerContextToken · L : replicatedSecondsPerToken · n) )
 *   + secondsPerChunk
 * </pre>
 * The first term is the attention step, split over the CP ranks (each computes its share of the
 * chunk's queries against every key so far: the indexer's scores grow with context). The second
 * is what the layout adds on each rank: shared KV gathers the full view of every key so far,
 * the replicated baseline writes every row of the chunk into its own pool. A request all of whose
 * tokens hit still computes its last one. Tokens loaded from the host tier cost
 * {@code hostSecondsPerToken} each (their KV over one host link), before the first chunk: shared KV
 * loads each page on its owner, the ranks in parallel ({@code / cp}); the replicated baseline loads
 * every page on every rank. The file is JSON with exactly these fields and a {@code name}
 * ({@code secondsPerChunk} and {@code hostSecondsPerToken} may be left out: 0);
 * {@code docs/benchmarks.md} derives the committed calibration from our own H200 measurements.
 *
 * @param name                            what the numbers describe
 * @param layers                          layers of the model
 * @param chunkTokens                     tokens a prefill chunk computes at most
 * @param secondsPerToken                 one layer's attention step per query token, context aside, on one device
 * @param secondsPerTokenPerContextToken  its growth per key the query is scored against
 * @param sharedSecondsPerContextToken    shared KV: one rank's full-view gather per key, per layer and chunk
 * @param replicatedSecondsPerToken       the replicated baseline: one rank's write of a chunk row, per layer
 * @param secondsPerChunk                 fixed cost of a chunk (launches, the step's host work)
 * @param hostSecondsPerToken             loading one token's KV, all layers, from the host tier over one link
 */
public record CostModel(String name, int layers, int chunkTokens, double secondsPerToken, double secondsPerTokenPerContextToken,
                        double sharedSecondsPerContextToken, double replicatedSecondsPerToken, double secondsPerChunk, double hostSecondsPerToken) {
    private static final List<String> FIELDS = List.of("name", "layers", "chunkTokens", "secondsPerToken", "secondsPerTokenPerContextToken",
            "sharedSecondsPerContextToken", "replicatedSecondsPerToken", "secondsPerChunk", "hostSecondsPerToken");

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming a size below 1 or a cost that is negative or not finite
     */
    public CostModel {
        if (layers < 1 || chunkTokens < 1) {
            throw new IllegalArgumentException("layers " + layers + " and chunkTokens " + chunkTokens + " must be >= 1");
        }
        for (double cost : new double[] {secondsPerToken, secondsPerTokenPerContextToken, sharedSecondsPerContextToken, replicatedSecondsPerToken,
                secondsPerChunk, hostSecondsPerToken}) {
            if (!(cost >= 0) || !Double.isFinite(cost)) {
                throw new IllegalArgumentException("cost model " + name + ": every cost must be finite and >= 0, one was " + cost);
            }
        }
    }

    /**
     * Reads a cost model file.
     *
     * @param file a JSON document with the fields of this record
     * @return the model
     * @throws MalformedInputException naming the file and its field that is missing, unknown or out of range, or a file that is not JSON
     */
    public static CostModel read(Path file) {
        try {
            return parse(JsonDocuments.parseJson(file));
        } catch (MalformedInputException e) {
            throw new MalformedInputException(file + " " + e.path(), e.reason());
        }
    }

    private static CostModel parse(JsonNode root) {
        JsonFields f = JsonFields.of(root, "$", FIELDS);
        double max = 1e3; // seconds: a cost past this per token or chunk is a unit mistake
        return new CostModel(f.requireString("name"), (int) f.requireInteger("layers", 1, 10_000),
                (int) f.requireInteger("chunkTokens", 1, Integer.MAX_VALUE), f.requireNumber("secondsPerToken", 0, max),
                f.requireNumber("secondsPerTokenPerContextToken", 0, max), f.requireNumber("sharedSecondsPerContextToken", 0, max),
                f.requireNumber("replicatedSecondsPerToken", 0, max), f.number("secondsPerChunk", 0, 0, max), f.number("hostSecondsPerToken", 0, 0, max));
    }

    /**
     * The same model with host loads over a link of another speed.
     *
     * @param bytesPerToken KV bytes of one token, all layers
     * @param bytesPerSecond the host link's speed
     * @return the model with {@code hostSecondsPerToken = bytesPerToken / bytesPerSecond}
     * @throws IllegalArgumentException for a speed that is not a positive number
     */
    public CostModel withHostLink(long bytesPerToken, double bytesPerSecond) {
        if (!(bytesPerSecond > 0) || Double.isInfinite(bytesPerSecond)) {
            throw new IllegalArgumentException("host link " + bytesPerSecond + " B/s must be a finite number > 0");
        }
        return new CostModel(name, layers, chunkTokens, secondsPerToken, secondsPerTokenPerContextToken, sharedSecondsPerContextToken,
                replicatedSecondsPerToken, secondsPerChunk, bytesPerToken / bytesPerSecond);
    }

    /**
     * The modelled prefill time of one request whose hits all come from the device cache.
     *
     * @param seqLen    prompt tokens
     * @param hitTokens leading tokens served from the device cache instead of computed
     * @param cp        CP size
     * @param shared    shared KV ({@code true}) or the replicated baseline
     * @return seconds from the request's start on the instance to its first token
     */
    public double prefillSeconds(int seqLen, int hitTokens, int cp, boolean shared) {
        return prefillSeconds(seqLen, hitTokens, 0, cp, shared);
    }

    /**
     * The modelled prefill time of one request.
     *
     * @param seqLen     prompt tokens
     * @param hitTokens  leading tokens served from the device cache
     * @param hostTokens the tokens after them loaded from the host tier
     * @param cp         CP size
     * @param shared     shared KV ({@code true}) or the replicated baseline
     * @return seconds from the request's start on the instance to its first token
     */
    public double prefillSeconds(int seqLen, int hitTokens, int hostTokens, int cp, boolean shared) {
        if (seqLen < 1 || hitTokens < 0 || hostTokens < 0 || cp < 1) {
            throw new IllegalArgumentException("seqLen " + seqLen + " and cp " + cp + " must be >= 1, hitTokens " + hitTokens + " and hostTokens "
                    + hostTokens + " >= 0");
        }
        int from = (int) Math.min((long) hitTokens + hostTokens, seqLen - 1);
        double seconds = hostTokens * hostSecondsPerToken / (shared ? cp : 1);
        for (int start = from; start < seqLen; start += chunkTokens) {
            int end = (int) Math.min((long) start + chunkTokens, seqLen);
            seconds += chunkSeconds(end - start, end, cp, shared);
        }
        return seconds;
    }

    /** One chunk of {@code n} new tokens whose keys reach position {@code keys}. */
    private double chunkSeconds(int n, long keys, int cp, boolean shared) {
        double step = (double) n / cp * (secondsPerToken + secondsPerTokenPerContextToken * keys);
        double layout = shared ? sharedSecondsPerContextToken * keys : replicatedSecondsPerToken * n;
        return layers * (step + layout) + secondsPerChunk;
    }
}

package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.split.CpSplit;
import org.kvflow.core.split.RankShare;
import org.kvflow.core.split.SplitMode;
import org.kvflow.core.split.SplitPlan;
import org.kvflow.core.split.TokenRange;

/** Kind {@code split} (contract §5): which extend tokens each rank computes. */
final class SplitScenario implements Scenario {
    @Override
    public String kind() {
        return "split";
    }

    @Override
    public List<String> fields() {
        return List.of("mode", "cpSize", "tokens");
    }

    /** Most tokens a round-robin split answers for: it lists each token id. */
    static final long MAX_ROUND_ROBIN_TOKENS = 1 << 20;

    @Override
    public ObjectNode run(JsonFields in) {
        SplitMode mode = in.requireEnum("mode", SplitMode.class);
        if (mode == SplitMode.NONE) {
            throw new org.kvflow.core.json.MalformedInputException(in.pathOf("mode"),
                    "must be one of [in-seq-split, round-robin-split], was \"none\"");
        }
        // the answer lists every rank (and, round-robin, every token id): bounded so that a small input cannot ask for gigabytes
        int cp = (int) in.requireInteger("cpSize", 1, Scenario.MAX_CP);
        long tokens = in.requireInteger("tokens", 0, mode == SplitMode.ROUND_ROBIN_SPLIT ? MAX_ROUND_ROBIN_TOKENS : Integer.MAX_VALUE);
        SplitPlan plan = CpSplit.split(mode, tokens, cp);

        ObjectNode out = Json.object().put("cpSplit", plan.cpSplit());
        if (!plan.cpSplit()) {
            return out;
        }
        ArrayNode ranks = out.putArray("ranks");
        for (RankShare share : plan.shares()) {
            ObjectNode rank = ranks.addObject().put("rank", share.rank());
            switch (share) {
                case RankShare.Ranges r -> {
                    ArrayNode ranges = rank.putArray("ranges");
                    for (TokenRange range : r.ranges()) {
                        ranges.addArray().add(range.start()).add(range.end());
                    }
                }
                case RankShare.TokenIds t -> {
                    ArrayNode ids = rank.putArray("tokenIds");
                    for (long id : t.tokenIds()) {
                        ids.add(id);
                    }
                }
            }
            rank.put("tokens", share.tokens());
        }
        return out;
    }
}

package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.JsonValues;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.operators.transfer.PagePair;
import org.kvflow.transfer.PageRun;
import org.kvflow.operators.transfer.RankSendPlan;
import org.kvflow.operators.transfer.TransferPlanner;

/** Kind {@code transfer} (contract §8): every prefill rank's sender plan for one chunk. */
final class TransferScenario implements Scenario {
    @Override
    public String kind() {
        return "transfer";
    }

    @Override
    public List<String> fields() {
        return List.of("cpSize", "pageSize", "prefillPages", "decodePages", "chunk", "seqLen");
    }

    @Override
    public ObjectNode run(JsonFields in) {
        int cp = (int) in.requireInteger("cpSize", 1, Scenario.MAX_CP); // the answer plans every rank
        int ps = (int) in.requireInteger("pageSize", 1, Integer.MAX_VALUE);
        long[] prefill = in.requireIntegers("prefillPages", 0, JsonValues.MAX_ID);
        long[] decode = in.requireIntegers("decodePages", 0, JsonValues.MAX_ID);
        long[] chunk = in.requireIntegers("chunk", 0, Integer.MAX_VALUE);
        long seqLen = in.requireInteger("seqLen", 0, Long.MAX_VALUE);
        long pages = RequestPageTable.pagesFor(seqLen, ps);
        if (prefill.length != pages) {
            throw new MalformedInputException(in.pathOf("prefillPages"), "must hold ceil(seqLen / pageSize) = " + pages
                    + " pages, has " + prefill.length);
        }
        if (chunk.length != 2) {
            throw new MalformedInputException(in.pathOf("chunk"), "must be [start, end], has " + chunk.length + " entries");
        }
        if (chunk[0] > chunk[1] || chunk[1] > prefill.length) {
            throw new MalformedInputException(in.pathOf("chunk"), "must satisfy 0 <= start <= end <= " + prefill.length
                    + ", was [" + chunk[0] + ", " + chunk[1] + "]");
        }
        int[] table = new int[prefill.length];
        for (int i = 0; i < table.length; i++) {
            table[i] = (int) prefill[i];
        }
        boolean last = chunk[1] == pages;
        List<RankSendPlan> plans = TransferPlanner.planAll(new OwnershipMap(cp, ps), table, decode,
                (int) chunk[0], (int) chunk[1], last);

        ObjectNode out = Json.object();
        ArrayNode ranks = out.putArray("ranks");
        int sent = 0;
        for (RankSendPlan plan : plans) {
            ObjectNode rank = ranks.addObject().put("rank", plan.rank());
            ArrayNode pairs = rank.putArray("pairs");
            for (PagePair p : plan.pairs()) {
                pairs.addObject().put("pos", p.pos()).put("srcLocal", p.srcLocal()).put("dst", p.dst());
            }
            ArrayNode runs = rank.putArray("runs");
            for (PageRun run : plan.runs()) {
                ObjectNode r = runs.addObject();
                ArrayNode src = r.putArray("src");
                ArrayNode dst = r.putArray("dst");
                for (long s : run.src()) {
                    src.add(s);
                }
                for (long d : run.dst()) {
                    dst.add(d);
                }
            }
            rank.put("complete", plan.complete());
            sent += plan.pairs().size();
        }
        return out.put("pagesSent", sent);
    }
}

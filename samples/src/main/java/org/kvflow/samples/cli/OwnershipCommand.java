package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolExhaustedException;
import org.kvflow.core.pool.PoolLayout;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvflow ownership}: allocates one request of T tokens on fresh shared-KV pools and shows
 * its page table, owners and per-rank page counts, the physical pages it costs shared vs
 * replicated, and the logical capacity of both layouts for the same per-rank budget (contract §3.4).
 */
@Command(name = "ownership", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow ownership --cp 8 --tokens 131072 --budget-bytes 40GiB"},
        description = "Page table, owners and capacity of one request on a fresh shared-KV allocator (contract §3.4, §4).")
final class OwnershipCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--cp", required = true, description = "CP size") int cp;
    @Option(names = "--page-size", defaultValue = "64", description = "tokens per page (default ${DEFAULT-VALUE})") int pageSize;
    @Option(names = "--tokens", required = true, description = "request length in tokens") long tokens;
    @Option(names = "--budget-bytes", defaultValue = "40GiB", converter = ByteSize.class,
            description = "per-rank KV pool budget: bytes, or with a unit such as 40GiB (default ${DEFAULT-VALUE})") long budgetBytes;
    @Option(names = "--kv-cache-dtype", defaultValue = "fp8_e4m3", description = "bf16 | fp8_e4m3 (default ${DEFAULT-VALUE})")
    KvDtype kvDtype;
    @Option(names = "--model", defaultValue = "deepseek-v3.2", description = "deepseek-v3.2 | glm-5 (default ${DEFAULT-VALUE})")
    String model;
    @Option(names = "--json", description = "print JSON") boolean json;

    @Override
    public Integer call() {
        if (cp < 1) {
            throw new MalformedInputException("--cp", "must be >= 1, was " + cp);
        }
        if (pageSize < 1) {
            throw new MalformedInputException("--page-size", "must be >= 1, was " + pageSize);
        }
        if (tokens < 0) {
            throw new MalformedInputException("--tokens", "must be >= 0, was " + tokens);
        }
        ModelShape shape = ModelShape.preset(model).orElseThrow(() -> new MalformedInputException("--model",
                "must be one of " + ModelShape.PRESETS.stream().map(ModelShape::name).toList() + ", was \"" + model + "\""));
        KvLayout layout = new KvLayout(shape, kvDtype);
        PoolCapacity capacity;
        KvPools shared;
        try {
            capacity = PoolCapacity.fromBudget(budgetBytes, layout, pageSize);
            shared = KvPools.shared(cp, capacity);
        } catch (IllegalArgumentException e) {
            throw new MalformedInputException("--budget-bytes", e.getMessage());
        }
        RequestPageTable table = new RequestPageTable(pageSize);
        try {
            table.extend(tokens, shared);
        } catch (PoolExhaustedException e) {
            throw new MalformedInputException("--tokens", tokens + " tokens need " + e.requestedPages()
                    + " pages; the shared pool of cp " + cp + " holds " + e.freePages());
        }
        ObjectNode answer = answer(shape, layout, capacity, shared, table);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, answer);
        } else {
            printText(out, answer);
        }
        return KvflowCli.EXIT_OK;
    }

    private ObjectNode answer(ModelShape shape, KvLayout layout, PoolCapacity capacity, KvPools shared, RequestPageTable table) {
        OwnershipMap map = shared.ownership();
        ObjectNode o = JsonNodeFactory.instance.objectNode()
                .put("cpSize", cp).put("pageSize", pageSize).put("tokens", tokens).put("pages", table.pageCount());
        ArrayNode rows = o.putArray("pageTable");
        int[] pages = table.pages();
        for (int pos = 0; pos < pages.length; pos++) {
            rows.addObject().put("pos", pos).put("page", pages[pos])
                    .put("owner", map.owner(pages[pos])).put("localPage", map.localPage(pages[pos]));
        }
        ArrayNode perRank = o.putArray("perRankPages");
        for (int r = 0; r < cp; r++) {
            perRank.add(shared.rank(r).usedPages());
        }
        long replicatedCopies = (long) table.pageCount() * cp;
        boolean fitsReplicated = table.pageCount() <= capacity.usableLogicalPages(PoolLayout.REPLICATED, cp);
        ObjectNode physical = o.putObject("physicalPages").put("shared", shared.physicalPagesInUse());
        if (fitsReplicated) {
            physical.put("replicated", replicatedCopies);
        } else {
            physical.putNull("replicated");
        }
        o.putObject("capacity")
                .put("model", shape.name()).put("layers", shape.layers()).put("kvDtype", layout.dtype().wireName())
                .put("budgetBytes", capacity.budgetBytes()).put("bytesPerToken", capacity.bytesPerToken())
                .put("pagesPerRank", capacity.pagesPerRank())
                .put("sharedLogicalPages", capacity.usableLogicalPages(PoolLayout.SHARED, cp))
                .put("sharedLogicalTokens", capacity.usableLogicalTokens(PoolLayout.SHARED, cp))
                .put("replicatedLogicalPages", capacity.usableLogicalPages(PoolLayout.REPLICATED, cp))
                .put("replicatedLogicalTokens", capacity.usableLogicalTokens(PoolLayout.REPLICATED, cp))
                .put("capacityRatio", capacity.capacityRatio(cp));
        return o;
    }

    private static void printText(PrintWriter out, ObjectNode a) {
        int cp = a.get("cpSize").intValue();
        out.printf(Locale.ROOT, "request: %d tokens, page size %d -> %d pages on CP %d (shared KV)%n",
                a.get("tokens").longValue(), a.get("pageSize").intValue(), a.get("pages").intValue(), cp);
        out.println("pos\tpage\towner\tlocalPage");
        a.get("pageTable").forEach(r -> out.printf(Locale.ROOT, "%d\t%d\t%d\t%d%n", r.get("pos").intValue(),
                r.get("page").intValue(), r.get("owner").intValue(), r.get("localPage").longValue()));
        StringBuilder ranks = new StringBuilder("pages per rank:");
        for (int r = 0; r < cp; r++) {
            ranks.append(" r").append(r).append('=').append(a.get("perRankPages").get(r).intValue());
        }
        out.println(ranks);
        ObjectNode physical = (ObjectNode) a.get("physicalPages");
        out.printf(Locale.ROOT, "physical pages: shared %d, replicated %s%n", physical.get("shared").longValue(),
                physical.get("replicated").isNull() ? "(does not fit)" : physical.get("replicated").asText() + " (" + cp + (cp == 1 ? " copy)" : " copies)"));
        ObjectNode c = (ObjectNode) a.get("capacity");
        out.printf(Locale.ROOT, "capacity: %s, %d layers, %s, budget %d B per rank, %d B per token -> %d pages per rank%n",
                c.get("model").asText(), c.get("layers").intValue(), c.get("kvDtype").asText(), c.get("budgetBytes").longValue(),
                c.get("bytesPerToken").longValue(), c.get("pagesPerRank").intValue());
        out.printf(Locale.ROOT, "  shared CP%d:     %d logical pages, %d tokens%n", cp,
                c.get("sharedLogicalPages").longValue(), c.get("sharedLogicalTokens").longValue());
        out.printf(Locale.ROOT, "  replicated CP%d: %d logical pages, %d tokens%n", cp,
                c.get("replicatedLogicalPages").longValue(), c.get("replicatedLogicalTokens").longValue());
        out.printf(Locale.ROOT, "  capacity ratio (cp*N-1)/(N-1) = %.4f%n", c.get("capacityRatio").doubleValue());
        out.flush();
    }
}

package org.kvflow.bench;

import java.util.SplittableRandom;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.ownership.OwnershipMap;

/**
 * The request the view benches gather: DeepSeek V3.2 fp8 KV with {@code layers} layers, page 64,
 * a {@code tokens}-token request owned by page id over {@code cp} ranks of {@code perRank} pages
 * (its pages at random page ids), and per owner its local pages and their view pages. Made from a
 * bench's arguments: cp (8), tokens (131072), layers (61).
 */
record OwnedRequest(int cp, int tokens, int layers, KvLayout layout, int pages, int perRank, OwnershipMap ownership, long[] ids,
                    long[][] src, long[][] dst) {
    static final int PS = 64;

    static OwnedRequest fromArgs(String[] args) {
        int cp = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 131_072;
        int layers = args.length > 2 ? Integer.parseInt(args[2]) : ModelShape.DEEPSEEK_V32.layers();
        int pages = (tokens + PS - 1) / PS;
        int perRank = pages / cp + 64;
        OwnershipMap ownership = new OwnershipMap(cp, PS);
        long[] ids = RankLayoutBench.sample(new SplittableRandom(7), pages, (long) cp * perRank);
        long[][] src = new long[cp][];
        long[][] dst = new long[cp][];
        RankLayoutBench.split(ownership, ids, src, dst);
        return new OwnedRequest(cp, tokens, layers, RankLayoutBench.v32Fp8(layers), pages, perRank, ownership, ids, src, dst);
    }
}

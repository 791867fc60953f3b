package org.kvflow.samples;

import java.nio.file.Path;
import java.util.List;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/**
 * Sample: in a fresh process, replay a HiCache journal (for example the one {@code kvflow demo
 * --journal DIR} keeps, under {@code DIR/journal}) into a host cache and serve a prefix lookup.
 * Arguments: the journal directory, then the token ids of a prompt.
 */
public final class ReplayJournal {
    private ReplayJournal() {}

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        HostPageCache cache = new HostPageCache(8L << 30);
        ReplayReport report = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP, cache, (r, b) -> { });
        System.out.println("restored " + cache.size() + " page objects from " + report.records() + " records, refused "
                + report.rejected().size());
        int[] prompt = new int[args.length - 1];
        for (int i = 1; i < args.length; i++) {
            prompt[i - 1] = Integer.parseInt(args[i]);
        }
        int pageSize = JournalLayout.read(dir).pageSize();
        List<byte[]> chain = PageHashChain.fullPageHashes(prompt, pageSize);
        int hit = cache.matchPrefix(chain);
        System.out.println("prefix hit: " + hit + " of " + chain.size() + " full pages (" + hit * pageSize + " tokens) can be loaded"
                + (hit > 0 ? "; first page kv payload " + cache.get(chain.getFirst(), HiCachePool.KV).payloadLength() + " B" : ""));
    }

}

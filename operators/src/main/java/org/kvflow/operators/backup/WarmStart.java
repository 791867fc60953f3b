package org.kvflow.operators.backup;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.operators.group.KvGroup;

/**
 * A warm start after a restart: the full pages of given prompts, restored from a HiCache journal
 * straight into a group's rank stores ({@link JournalPrefixRestore}) and put into its device prefix
 * cache, so the first requests with those prefixes hit on the device instead of computing them.
 * Pages the journal does not hold whole (both pools, checks passed) are freed; a prompt's cached
 * prefix ends at its first such page, or where the pools are full.
 */
public final class WarmStart {
    private WarmStart() {}

    /**
     * Restores every prompt's full pages that the journal holds into the group's prefix cache.
     *
     * @param group   the group (prefix caching on, with a model)
     * @param journal the journal directory
     * @param prompts the prompts' token ids
     * @return per prompt, the tokens its cached prefix now covers (whole pages)
     * @throws IllegalStateException if the group has no prefix cache or no KV bytes
     * @throws org.kvflow.journal.JournalIoException if {@code journal} is not a journal
     */
    public static List<Long> restore(KvGroup group, Path journal, List<int[]> prompts) {
        int ps = group.config().pageSize();
        List<Long> cachedTokens = new ArrayList<>();
        try (JournalPrefixRestore restore = new JournalPrefixRestore(group.stores(), JournalPrefixRestore.DEFAULT_BATCH_PAGES, JournalPrefixRestore.DEFAULT_READERS)) {
            for (int[] tokens : prompts) {
                List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, ps);
                KvGroup.WarmPages warm = group.warmPages(hashes);
                int restored = 0;
                try {
                    if (warm.pages().length > 0) {
                        // the pages that fit: a prompt longer than the pools gets its first ones
                        List<byte[]> wanted = hashes.subList(warm.cached(), warm.cached() + warm.pages().length);
                        restored = restore.restore(journal, wanted, warm.pages()).restoredPrefix();
                    }
                } finally {
                    cachedTokens.add((long) group.cacheRestored(hashes, warm, restored) * ps);
                }
            }
        }
        return cachedTokens;
    }
}

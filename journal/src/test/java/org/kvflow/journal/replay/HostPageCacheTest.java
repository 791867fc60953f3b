package org.kvflow.journal.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.journal.TestPages;
import org.kvflow.journal.record.PageBackup;

/** The host cache counts the payload bytes it holds to the byte, keeps at most its capacity, oldest out first. */
class HostPageCacheTest {
    /** Page 0's kv and indexer entries, then page 1's. */
    private static final List<PageBackup> PAGES = TestPages.prompt(3, 2);
    private static final long KV = TestPages.LAYOUT.payloadBytes(HiCachePool.KV);
    private static final long INDEXER = TestPages.LAYOUT.payloadBytes(HiCachePool.INDEXER);

    @Test
    void bytesAndKeysFollowEveryPutAndEviction() {
        HostPageCache cache = new HostPageCache(1 << 20);
        PAGES.forEach(cache::put);
        assertThat(cache.bytes()).isEqualTo(2 * (KV + INDEXER));
        assertThat(cache.keys()).containsExactlyElementsOf(PAGES.stream().map(PageBackup::key).toList());
        assertThat(cache.put(PAGES.get(1))).isEqualTo(HostPageCache.PutResult.SAME_BYTES);
        assertThat(cache.bytes()).as("a page held already adds nothing").isEqualTo(2 * (KV + INDEXER));
        cache.evict(PAGES.get(0).pageHash());
        assertThat(cache.bytes()).isEqualTo(KV + INDEXER);
        assertThat(cache.keys()).containsExactly(PAGES.get(2).key(), PAGES.get(3).key());
        cache.evict(PAGES.get(0).pageHash());
        assertThat(cache.bytes()).as("evicting it again changes nothing").isEqualTo(KV + INDEXER);
        assertThat(cache.usable(PAGES.get(2).pageHash())).as("page 1's parent is gone").isFalse();
    }

    @Test
    void aCacheHoldsExactlyItsCapacityAndDropsTheOldestBeyondIt() {
        HostPageCache full = new HostPageCache(KV + INDEXER);
        full.put(PAGES.get(0));
        full.put(PAGES.get(1));
        assertThat(full.evictedForSpace()).as("two entries that fill it exactly").isZero();
        assertThat(full.usable(PAGES.get(0).pageHash())).isTrue();
        full.put(PAGES.get(2));
        assertThat(full.evictedForSpace()).as("page 1's kv entry takes the room of page 0's").isEqualTo(1);
        assertThat(full.keys()).containsExactly(PAGES.get(1).key(), PAGES.get(2).key());
        assertThat(full.bytes()).isEqualTo(KV + INDEXER);

        HostPageCache one = new HostPageCache(1);
        assertThat(one.put(PAGES.get(0))).as("a page larger than the cache is still held, alone").isEqualTo(HostPageCache.PutResult.INSERTED);
        assertThat(one.bytes()).isEqualTo(KV);
    }

    @Test
    void aFullCacheKeepsNoLinkOfAPageItDropped() {
        List<PageBackup> many = TestPages.prompt(5, 50);
        HostPageCache full = new HostPageCache(KV + INDEXER);
        many.forEach(full::put);
        assertThat(full.keys()).as("the last page's two pools").hasSize(2);
        assertThat(full.parentLinks()).as("links of the pages held, not of the 49 dropped").isEqualTo(1);
        full.evict(many.getLast().pageHash());
        assertThat(full.parentLinks()).isZero();
    }
}

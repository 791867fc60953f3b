package org.kvflow.operators.backup;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.Residency;
import org.kvflow.operators.group.RankStores;

/**
 * Where the backup stage reads the pages it journals. Pools in device memory are first gathered
 * from their owners into a host staging store (pinned for {@code cuda}) in one batch, so the
 * device is read once per request; pools on the heap are read where they lie. The staging store
 * grows to the largest request and is freed by {@link #close()}.
 */
final class BackupStaging implements AutoCloseable {
    private final RankStores stores;
    private @Nullable PageStore staging;
    /** Staging page of each page of the last {@link #stage} call, by list position. */
    private int[] pages = new int[0];
    private boolean staged;

    BackupStaging(RankStores stores) {
        this.stores = stores;
    }

    /** Makes logical pages {@code logical} ready to read (pools in device memory or in rank processes: one gather to the host). */
    void stage(int[] logical) {
        pages = logical.clone();
        Residency pools = stores.rank(0).residency();
        staged = (pools == Residency.DEVICE || pools == Residency.REMOTE) && logical.length > 0;
        if (!staged) {
            return;
        }
        PageStore host = staging(logical.length);
        int ranks = stores.ranks();
        List<List<Long>> src = new ArrayList<>();
        List<List<Long>> dst = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            src.add(new ArrayList<>());
            dst.add(new ArrayList<>());
        }
        for (int i = 0; i < logical.length; i++) {
            int holder = stores.holder(logical[i]);
            src.get(holder).add(stores.physicalPage(logical[i]));
            dst.get(holder).add((long) i);
        }
        List<PageStore> sources = new ArrayList<>();
        List<long[]> srcPages = new ArrayList<>();
        List<long[]> dstPages = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            if (!src.get(r).isEmpty()) {
                sources.add(stores.rank(r));
                srcPages.add(src.get(r).stream().mapToLong(Long::longValue).toArray());
                dstPages.add(dst.get(r).stream().mapToLong(Long::longValue).toArray());
            }
        }
        host.countedAs(stores.stage()).gatherFrom(sources, srcPages, dstPages);
    }

    /** The layer-major payload of {@code component} of the page at position {@code i} of the last {@link #stage} call. */
    byte[] payload(int i, KvComponent component) {
        if (staged) {
            return java.util.Objects.requireNonNull(staging).countedAs(stores.stage()).readPage(component, i);
        }
        int page = pages[i];
        return stores.rank(stores.holder(page)).readPage(component, stores.physicalPage(page));
    }

    private PageStore staging(int need) {
        if (staging == null || staging.pages() < need) {
            if (staging != null) {
                staging.close();
            }
            PageStore first = stores.rank(0);
            // in the group's memory (pinned host memory for cuda pools), not a rank store's own: rank processes' pools reached
            // by staged copies live in a memory that allocates nothing
            staging = PageStore.allocateHost(stores.memory(), "hicache backup staging", first.layout(), first.pageSize(), Math.max(need, 64));
        }
        return staging;
    }

    @Override
    public void close() {
        if (staging != null) {
            staging.close();
            staging = null;
        }
    }
}

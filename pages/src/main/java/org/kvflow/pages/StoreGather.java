package org.kvflow.pages;

import java.util.ArrayList;
import java.util.List;

/**
 * How {@link PageStore#gatherFrom} copies pages from several stores: every list checked first, the
 * stores in the destination's memory copied as one batch by that memory, the others staged through
 * the host in runs of consecutive pages.
 */
final class StoreGather {
    private StoreGather() {}

    static void into(PageStore dst, List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages, KvComponent... components) {
        check(dst, sources, srcPages, dstPages);
        List<PageCopy> batch = batch(dst, sources, srcPages, dstPages, components);
        for (int k = 0; k < sources.size(); k++) {
            PageStore src = sources.get(k);
            if (src.memory() != dst.memory()) {
                stage(dst, src, srcPages.get(k), dstPages.get(k), components);
            }
        }
        if (!batch.isEmpty()) {
            dst.countCrossed(dst.memory().copyPages(batch));
        }
    }

    /** The checks of a gather: as many lists as sources, matching stores, lists of equal lengths inside their stores. */
    static void check(PageStore dst, List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages) {
        if (sources.size() != srcPages.size() || sources.size() != dstPages.size()) {
            throw new IllegalArgumentException(sources.size() + " sources with " + srcPages.size() + " source and " + dstPages.size()
                    + " destination page lists");
        }
        for (int k = 0; k < sources.size(); k++) {
            PageStore src = sources.get(k);
            if (!src.layout().equals(dst.layout()) || src.pageSize() != dst.pageSize()) {
                throw new IncompatibleStoresException(src, dst);
            }
            PageListMismatchException.check(srcPages.get(k), dstPages.get(k));
            PageLists.check(src.label(), srcPages.get(k), src.pages());
            PageLists.check(dst.label(), dstPages.get(k), dst.pages());
        }
    }

    /** The copies of the sources in the destination's memory, source by source, then component, then layer. */
    static List<PageCopy> batch(PageStore dst, List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages, KvComponent... components) {
        List<PageCopy> batch = new ArrayList<>(sources.size() * components.length * dst.layers());
        for (int k = 0; k < sources.size(); k++) {
            PageStore src = sources.get(k);
            if (src.memory() == dst.memory()) {
                for (KvComponent component : components) {
                    for (int l = 0; l < dst.layers(); l++) {
                        batch.add(new PageCopy(src.buffer(l, component), srcPages.get(k), dst.buffer(l, component), dstPages.get(k)));
                    }
                }
            }
        }
        return batch;
    }

    /** Pages of a store in another memory through the host: each layer's pages read and written in runs of consecutive pages. */
    private static void stage(PageStore dst, PageStore src, long[] srcPages, long[] dstPages, KvComponent... components) {
        for (KvComponent component : components) {
            for (int l = 0; l < dst.layers(); l++) {
                dst.writePages(l, component, dstPages, src.readPages(l, component, srcPages));
            }
        }
    }
}

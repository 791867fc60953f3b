package org.kvflow.transport.tcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.kvflow.pages.Crc32cCombine;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RangeCrcs;

/** The CRC32C of one page as the protocol checks it: every layer's MLA page, then every layer's indexer page, read from a store. */
public final class PageCrcs {
    private PageCrcs() {}

    /**
     * @param store the store
     * @param page  the page
     * @return its CRC32C over every layer and pool, in the contract's page order
     */
    public static int of(PageStore store, long page) {
        CRC32C crc = new CRC32C();
        for (KvComponent component : KvComponent.values()) {
            int bytes = store.pageBytes(component);
            for (int l = 0; l < store.layers(); l++) {
                store.checksum(l, component, page * bytes, bytes, crc);
            }
        }
        return (int) crc.getValue();
    }

    /**
     * The checksums of {@code pages}, as {@link #of(PageStore, long)} gives each: where the store's
     * memory computes checksums in place ({@link RangeCrcs}, the GPU), in one call over every page,
     * layer and pool, joined per page ({@link Crc32cCombine}); elsewhere page by page.
     *
     * @param store the store
     * @param pages its pages
     * @return their checksums, in the same order
     */
    public static int[] of(PageStore store, long[] pages) {
        int[] crcs = new int[pages.length];
        Optional<RangeCrcs> inPlace = store.memory().capability(RangeCrcs.class);
        if (inPlace.isEmpty()) {
            for (int k = 0; k < pages.length; k++) {
                crcs[k] = of(store, pages[k]);
            }
            return crcs;
        }
        List<RangeCrcs.Range> ranges = new ArrayList<>(pages.length * store.layers() * KvComponent.values().length);
        for (long page : pages) {
            for (KvComponent component : KvComponent.values()) {
                int bytes = store.pageBytes(component);
                for (int l = 0; l < store.layers(); l++) {
                    ranges.add(new RangeCrcs.Range(store.buffer(l, component), page * bytes, bytes));
                }
            }
        }
        int[] parts = inPlace.get().crc32c(ranges);
        Crc32cCombine.Appending[] after = new Crc32cCombine.Appending[KvComponent.values().length];
        for (KvComponent component : KvComponent.values()) {
            after[component.ordinal()] = Crc32cCombine.appending(store.pageBytes(component));
        }
        int at = 0;
        for (int k = 0; k < pages.length; k++) {
            int crc = 0; // the CRC32C of no bytes
            for (KvComponent component : KvComponent.values()) {
                for (int l = 0; l < store.layers(); l++) {
                    crc = after[component.ordinal()].combine(crc, parts[at++]);
                }
            }
            crcs[k] = crc;
        }
        return crcs;
    }
}

package org.kvflow.transport.tcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.kvflow.pages.Crc32cCombine;
import org.kvflow.pages.InPlaceCrcs;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageStore;

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
     * memory computes checksums in place ({@link InPlaceCrcs}, the GPU), in one call over every
     * layer and pool, joined per page ({@link Crc32cCombine}); elsewhere page by page.
     *
     * @param store the store
     * @param pages its pages
     * @return their checksums, in the same order
     */
    public static int[] of(PageStore store, long[] pages) {
        Optional<InPlaceCrcs> inPlace = store.memory().capability(InPlaceCrcs.class);
        if (inPlace.isEmpty()) {
            int[] crcs = new int[pages.length];
            for (int k = 0; k < pages.length; k++) {
                crcs[k] = of(store, pages[k]);
            }
            return crcs;
        }
        List<PageBuffer> buffers = new ArrayList<>(store.layers() * KvComponent.values().length);
        for (KvComponent component : KvComponent.values()) {
            for (int l = 0; l < store.layers(); l++) {
                buffers.add(store.buffer(l, component));
            }
        }
        return ofBuffers(store, pages.length, inPlace.get().crc32c(buffers, pages));
    }

    /**
     * The checksums of the pages a batch copied, as {@link #of(PageStore, long)} gives each, from
     * the batch's per-copy checksums ({@link org.kvflow.pages.CheckedCopies}).
     *
     * @param store  the store the batch copied from
     * @param copied {@code copied[component.ordinal() * layers + layer][k]}: page {@code k}'s bytes of that buffer
     * @return the pages' checksums
     */
    public static int[] ofCopied(PageStore store, int[][] copied) {
        return ofBuffers(store, copied.length == 0 ? 0 : copied[0].length, copied);
    }

    /** Each page's buffers' checksums ({@code parts[component.ordinal() * layers + layer][k]}) joined in the contract's page order. */
    private static int[] ofBuffers(PageStore store, int pages, int[][] parts) {
        Crc32cCombine.Appending[] after = new Crc32cCombine.Appending[KvComponent.values().length];
        for (KvComponent component : KvComponent.values()) {
            after[component.ordinal()] = Crc32cCombine.appending(store.pageBytes(component));
        }
        int[] crcs = new int[pages];
        for (int k = 0; k < pages; k++) {
            int crc = 0; // the CRC32C of no bytes
            for (KvComponent component : KvComponent.values()) {
                for (int l = 0; l < store.layers(); l++) {
                    crc = after[component.ordinal()].combine(crc, parts[component.ordinal() * store.layers() + l][k]);
                }
            }
            crcs[k] = crc;
        }
        return crcs;
    }
}

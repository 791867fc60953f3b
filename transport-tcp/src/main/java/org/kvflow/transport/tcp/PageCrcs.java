package org.kvflow.transport.tcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;
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
     * layer and pool in the contract's page order; elsewhere page by page.
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
        return inPlace.get().crc32c(buffers(store), pages);
    }

    /** {@return the store's buffers in the contract's page order: every layer's MLA buffer, then every layer's indexer buffer} */
    public static List<PageBuffer> buffers(PageStore store) {
        List<PageBuffer> buffers = new ArrayList<>(store.layers() * KvComponent.values().length);
        for (KvComponent component : KvComponent.values()) {
            for (int l = 0; l < store.layers(); l++) {
                buffers.add(store.buffer(l, component));
            }
        }
        return buffers;
    }
}

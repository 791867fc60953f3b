package org.kvflow.transport.tcp;

import java.util.zip.CRC32C;
import org.kvflow.pages.KvComponent;
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
}

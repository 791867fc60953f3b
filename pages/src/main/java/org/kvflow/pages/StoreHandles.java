package org.kvflow.pages;

import java.util.List;

/**
 * What another process needs to open a {@link PageStore}'s pages in place: its page size, its page
 * count and, per layer, the handle of its MLA buffer and of its indexer buffer
 * ({@link BufferExport#exportBuffer}).
 */
public record StoreHandles(int pageSize, int pages, List<byte[]> mla, List<byte[]> index) {
    /** @throws IllegalArgumentException if a size is negative or the lists differ in length */
    public StoreHandles {
        if (pageSize < 1 || pages < 0 || mla.size() != index.size()) {
            throw new IllegalArgumentException("store handles of page size " + pageSize + ", " + pages + " pages, " + mla.size()
                    + " MLA and " + index.size() + " indexer handles");
        }
        mla = List.copyOf(mla);
        index = List.copyOf(index);
    }
}

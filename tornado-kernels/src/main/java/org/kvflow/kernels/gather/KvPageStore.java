package org.kvflow.kernels.gather;

import java.util.Objects;
import org.kvflow.core.model.KvLayout;

/**
 * The KV bytes of one rank (or of one full view, or of a decode instance): per layer one MLA
 * buffer of {@code pages·ps} rows and one indexer buffer of {@code pages} indexer pages (SPEC §3.2,
 * §3.3). Page {@code k} occupies bytes {@code [k·pageBytes, (k+1)·pageBytes)} of each buffer. Each
 * buffer must stay under 2 GiB (a Java array; also Aparapi's limit, TOOLCHAIN.md §10.1). Not
 * thread-safe; writers of disjoint pages may run concurrently.
 */
public final class KvPageStore {
    private final KvLayout layout;
    private final int pageSize;
    private final int pages;
    private final byte[][] mla;
    private final byte[][] index;

    public KvPageStore(KvLayout layout, int pageSize, int pages) {
        this.layout = Objects.requireNonNull(layout, "layout");
        if (!layout.shape().kind().hasIndexer()) {
            throw new IllegalArgumentException("a KV page store holds NSA MLA layouts (latent + indexer), not "
                    + layout.shape().kind().wireName());
        }
        if (pageSize < 1 || pages < 0) {
            throw new IllegalArgumentException("pageSize must be >= 1 and pages >= 0, were " + pageSize + ", " + pages);
        }
        long mlaBytes = layout.mlaPageBytes(pageSize) * pages;
        long indexBytes = layout.indexPageBytes(pageSize) * pages;
        if (Math.max(mlaBytes, indexBytes) > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(pages + " pages need " + Math.max(mlaBytes, indexBytes)
                    + " bytes per layer buffer; split the pool, one buffer stays under 2 GiB");
        }
        this.pageSize = pageSize;
        this.pages = pages;
        int layers = layout.shape().layers();
        this.mla = new byte[layers][(int) mlaBytes];
        this.index = new byte[layers][(int) indexBytes];
    }

    public KvLayout layout() {
        return layout;
    }

    public int pageSize() {
        return pageSize;
    }

    public int pages() {
        return pages;
    }

    public int layers() {
        return mla.length;
    }

    /** The MLA buffer of {@code layer} (live, not a copy). */
    public byte[] mla(int layer) {
        return mla[layer];
    }

    /** The indexer buffer of {@code layer} (live, not a copy). */
    public byte[] index(int layer) {
        return index[layer];
    }

    public int mlaPageBytes() {
        return (int) layout.mlaPageBytes(pageSize);
    }

    public int indexPageBytes() {
        return (int) layout.indexPageBytes(pageSize);
    }

    /** Copies pages {@code srcPages} of {@code src} to pages {@code dstPages} of this store, every layer, both pools. */
    public void copyPagesFrom(KvPageStore src, long[] srcPages, long[] dstPages) {
        if (!src.layout.equals(layout) || src.pageSize != pageSize) {
            throw new IllegalArgumentException("stores differ in layout or page size: " + src.layout + "/" + src.pageSize
                    + " vs " + layout + "/" + pageSize);
        }
        PageCopyKernels.checkPages("source", srcPages, src.pages);
        PageCopyKernels.checkPages("destination", dstPages, pages);
        for (int l = 0; l < mla.length; l++) {
            PageCopyKernels.copyPages(src.mla[l], srcPages, mla[l], dstPages, mlaPageBytes());
            PageCopyKernels.copyPages(src.index[l], srcPages, index[l], dstPages, indexPageBytes());
        }
    }
}

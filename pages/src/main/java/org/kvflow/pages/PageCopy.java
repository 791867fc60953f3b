package org.kvflow.pages;

import java.util.Objects;

/** One page copy of a batch: {@code dst[dstPages[i]] ← src[srcPages[i]]} for every {@code i}. */
public record PageCopy(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
    public PageCopy {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(srcPages, "srcPages");
        Objects.requireNonNull(dst, "dst");
        Objects.requireNonNull(dstPages, "dstPages");
    }
}

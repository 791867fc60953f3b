package org.kvflow.pages;

import java.util.List;

/**
 * What a memory can do that keeps a batch of page copies ready: the copies are checked once, when
 * prepared, and the memory holds what their launch needs (its own copy of the page lists, on the
 * device for {@code cuda}), so each run moves the same pages again with no check, no table and no
 * upload before it starts: a view gathered again and again from the same owners' pages. Asked for
 * by type ({@code memory.capability(PreparedCopies.class)}); {@link PreparedGather} falls back to
 * plain copies on memories without it.
 */
public interface PreparedCopies {
    /**
     * {@code copies}, checked as {@link PageMemory#copyPages(List)} checks them, kept ready to run.
     * Later changes to the callers' page lists change nothing.
     *
     * @throws PageListMismatchException if a copy's lists differ in length
     * @throws PageSizeMismatchException if a copy's page sizes differ
     * @throws PageOutOfRangeException naming the first page outside its buffer
     */
    Prepared prepare(List<PageCopy> copies);

    /** A batch of copies kept ready by its memory; closing frees what the memory kept for it. */
    interface Prepared extends AutoCloseable {
        /**
         * Copies the same pages again, waited for.
         *
         * @return the bytes that crossed between host memory and memory outside it
         * @throws IllegalStateException naming the buffer if one was freed since, or the memory is closed, or this is
         */
        long run();

        @Override
        void close();
    }
}

package org.kvflow.pages;

/**
 * A buffer of {@code pages} whole pages of {@code pageBytes} each, owned by the {@link PageMemory}
 * that allocated it; only that memory may use or free it.
 */
public interface PageBuffer {
    String label();

    long pages();

    int pageBytes();

    Residency residency();

    default long bytes() {
        return pages() * pageBytes();
    }
}

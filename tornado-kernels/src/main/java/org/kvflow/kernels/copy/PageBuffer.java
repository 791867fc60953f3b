package org.kvflow.kernels.copy;

/**
 * A buffer of {@code pages} whole pages of {@code pageBytes} each, owned by the {@link PageCopier}
 * that allocated it; only that copier may use or free it.
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

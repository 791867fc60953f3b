package org.kvflow.kernels.copy;

/** A named {@link PageCopier} factory, found through {@link java.util.ServiceLoader}. */
public interface PageCopierProvider {
    /** The name callers ask for. */
    String name();

    /**
     * Opens a copier.
     *
     * @throws CopierUnavailableException if its device or driver is missing; the caller may choose another
     */
    PageCopier open();
}

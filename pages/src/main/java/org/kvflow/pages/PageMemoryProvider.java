package org.kvflow.pages;

/** A named {@link PageMemory} factory, found through {@link java.util.ServiceLoader}. */
public interface PageMemoryProvider {
    /** The name callers ask for. */
    String name();

    /**
     * Opens the memory of device {@code ordinal}.
     *
     * @throws MemoryUnavailableException if its device or driver is missing; the caller may choose another
     */
    PageMemory open(int ordinal);

    /** How many devices {@link #open} can open here (0 without a driver or device). */
    default int devices() {
        return 1;
    }
}

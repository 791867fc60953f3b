package org.kvflow.kernels.pages;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds page memories by name: {@code java} always, others through {@link ServiceLoader}. */
public final class PageMemories {
    private PageMemories() {}

    /** Every page memory name on the class path, {@code java} first. */
    public static List<String> names() {
        List<String> names = new ArrayList<>(List.of("java"));
        ServiceLoader.load(PageMemoryProvider.class).forEach(p -> names.add(p.name()));
        return names;
    }

    /**
     * Opens the page memory called {@code name}.
     *
     * @throws MemoryUnavailableException if no provider has that name, or it cannot run here
     */
    public static PageMemory open(String name) {
        if (name.equals("java")) {
            return new HeapPageMemory();
        }
        for (PageMemoryProvider provider : ServiceLoader.load(PageMemoryProvider.class)) {
            if (provider.name().equals(name)) {
                return provider.open();
            }
        }
        throw new MemoryUnavailableException(name, "no provider of that name; available: " + names());
    }
}

package org.kvflow.kernels.copy;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds copiers by name: {@code java} always, others through {@link ServiceLoader}. */
public final class PageCopiers {
    private PageCopiers() {}

    /** Every copier name on the class path, {@code java} first. */
    public static List<String> names() {
        List<String> names = new ArrayList<>(List.of("java"));
        ServiceLoader.load(PageCopierProvider.class).forEach(p -> names.add(p.name()));
        return names;
    }

    /**
     * Opens the copier called {@code name}.
     *
     * @throws CopierUnavailableException if no provider has that name, or it cannot run here
     */
    public static PageCopier open(String name) {
        if (name.equals("java")) {
            return new HeapPageCopier();
        }
        for (PageCopierProvider provider : ServiceLoader.load(PageCopierProvider.class)) {
            if (provider.name().equals(name)) {
                return provider.open();
            }
        }
        throw new CopierUnavailableException(name, "no provider of that name; available: " + names());
    }
}

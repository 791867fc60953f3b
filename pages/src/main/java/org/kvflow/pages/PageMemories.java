package org.kvflow.pages;

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
     * Opens the page memory {@code selector} names: {@code java}, or a provider's name with an
     * optional device ordinal ({@code cuda}, {@code cuda:1}).
     *
     * @throws MemoryUnavailableException if no provider has that name, or it cannot run here
     */
    public static PageMemory open(String selector) {
        if (selector.equals("java")) {
            return new HeapPageMemory();
        }
        int ordinal = ordinal(selector);
        return provider(name(selector), selector).open(ordinal);
    }

    /**
     * Checks that {@link #open} would find {@code selector}'s provider and device, without opening
     * it (nothing is allocated): what a pipeline definition validates.
     *
     * @throws MemoryUnavailableException if no provider has that name, or it finds no such device here
     */
    public static void check(String selector) {
        if (selector.equals("java")) {
            return;
        }
        int ordinal = ordinal(selector);
        int devices = provider(name(selector), selector).devices();
        if (ordinal < 0 || ordinal >= devices) {
            throw new MemoryUnavailableException(selector, "device " + ordinal + " is not here; the provider finds " + devices);
        }
    }

    /** The provider named {@code name}; a failure names {@code selector}. */
    private static PageMemoryProvider provider(String name, String selector) {
        for (PageMemoryProvider provider : ServiceLoader.load(PageMemoryProvider.class)) {
            if (provider.name().equals(name)) {
                return provider;
            }
        }
        throw new MemoryUnavailableException(selector, "no provider of that name; available: " + names());
    }

    private static String name(String selector) {
        int colon = selector.indexOf(':');
        return colon < 0 ? selector : selector.substring(0, colon);
    }

    private static int ordinal(String selector) {
        int colon = selector.indexOf(':');
        try {
            return colon < 0 ? 0 : Integer.parseInt(selector.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new MemoryUnavailableException(selector, "the device ordinal after ':' is not a number");
        }
    }

    /**
     * The memory a CP rank's pool lives in: {@code selector} as {@link #open} reads it, or, for
     * {@code NAME:*}, device {@code rank mod n} of the {@code n} devices the provider finds (one
     * rank per GPU, ranks wrapping around when there are more ranks than GPUs). {@code java:*} is
     * the heap.
     *
     * @param selector a memory selector, or {@code NAME:*}
     * @param rank     the CP rank
     * @return the memory's selector for that rank, e.g. {@code cuda:3}
     * @throws MemoryUnavailableException if no provider has that name or it finds no device
     */
    public static String forRank(String selector, int rank) {
        if (!selector.endsWith(":*")) {
            return selector;
        }
        String name = selector.substring(0, selector.length() - 2);
        if (name.equals("java")) {
            return name;
        }
        int devices = provider(name, selector).devices();
        if (devices < 1) {
            throw new MemoryUnavailableException(selector, "no " + name + " device to place rank " + rank + " on");
        }
        return name + ":" + Math.floorMod(rank, devices);
    }
}

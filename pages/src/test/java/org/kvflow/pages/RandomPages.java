package org.kvflow.pages;

import java.util.SplittableRandom;

/** Test pages: every page of a store, both components, every layer, filled with seeded random bytes. */
public final class RandomPages {
    private RandomPages() {}

    /** {@return {@code store}, each of its pages filled with random bytes from {@code seed}} */
    public static PageStore fill(PageStore store, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int p = 0; p < store.pages(); p++) {
            for (KvComponent c : KvComponent.values()) {
                byte[] payload = new byte[store.layers() * store.pageBytes(c)];
                rnd.nextBytes(payload);
                store.writePage(c, p, payload);
            }
        }
        return store;
    }
}

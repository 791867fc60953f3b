package org.kvflow.operators.backup;

import java.io.Serial;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Page keys mapped to what the backup stage knows of them, the least recently used forgotten once
 * there are more than a bound: hit counts and journaled pages of a long-lived pipeline would
 * otherwise grow with every distinct page it ever computed.
 */
final class RecentPages<V> extends LinkedHashMap<String, V> {
    @Serial
    private static final long serialVersionUID = 1L;
    private final int bound;

    RecentPages(int bound) {
        super(16, 0.75f, true);
        this.bound = bound;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > bound;
    }
}

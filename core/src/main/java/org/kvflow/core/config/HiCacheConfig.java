package org.kvflow.core.config;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * HiCache settings (SPEC §10.3, §11). The matrix, normalisations and E-HC-5 apply only when
 * {@code enabled}.
 *
 * @param hostPoolTokens host pool capacity in tokens, or {@code null} when not checked (E-HC-5)
 */
public record HiCacheConfig(boolean enabled, HiCacheStorageBackend storageBackend, HiCacheLayout layout,
                            HiCacheIoBackend ioBackend, WritePolicy writePolicy, @Nullable Long hostPoolTokens) {

    /** HiCache off, L2 only, {@code page_first}, io {@code kernel}, {@code write_through}. */
    public static final HiCacheConfig DEFAULTS = new HiCacheConfig(false, HiCacheStorageBackend.NONE,
            HiCacheLayout.PAGE_FIRST, HiCacheIoBackend.KERNEL, WritePolicy.WRITE_THROUGH, null);

    public HiCacheConfig {
        Objects.requireNonNull(storageBackend, "storageBackend");
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(ioBackend, "ioBackend");
        Objects.requireNonNull(writePolicy, "writePolicy");
    }

    public HiCacheConfig withLayout(HiCacheLayout newLayout) {
        return new HiCacheConfig(enabled, storageBackend, newLayout, ioBackend, writePolicy, hostPoolTokens);
    }

    public HiCacheConfig withIoBackend(HiCacheIoBackend newIoBackend) {
        return new HiCacheConfig(enabled, storageBackend, layout, newIoBackend, writePolicy, hostPoolTokens);
    }
}

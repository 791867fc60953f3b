package org.kvflow.core.config;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * HiCache settings (contract §10.3, §11). The matrix, normalisations and E-HC-5 apply only when
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


    /** A builder starting from {@link #DEFAULTS}. */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link HiCacheConfig} by name instead of six positional arguments. */
    public static final class Builder {
        private boolean enabled;
        private HiCacheStorageBackend storageBackend;
        private HiCacheLayout layout;
        private HiCacheIoBackend ioBackend;
        private WritePolicy writePolicy;
        private @Nullable Long hostPoolTokens;

        private Builder(HiCacheConfig from) {
            enabled = from.enabled;
            storageBackend = from.storageBackend;
            layout = from.layout;
            ioBackend = from.ioBackend;
            writePolicy = from.writePolicy;
            hostPoolTokens = from.hostPoolTokens;
        }

        public Builder enabled(boolean on) {
            enabled = on;
            return this;
        }

        public Builder storageBackend(HiCacheStorageBackend backend) {
            storageBackend = backend;
            return this;
        }

        public Builder layout(HiCacheLayout l) {
            layout = l;
            return this;
        }

        public Builder ioBackend(HiCacheIoBackend io) {
            ioBackend = io;
            return this;
        }

        public Builder writePolicy(WritePolicy policy) {
            writePolicy = policy;
            return this;
        }

        /** Host pool capacity in tokens, checked by E-HC-5; null: not checked. */
        public Builder hostPoolTokens(@Nullable Long tokens) {
            hostPoolTokens = tokens;
            return this;
        }

        public HiCacheConfig build() {
            return new HiCacheConfig(enabled, storageBackend, layout, ioBackend, writePolicy, hostPoolTokens);
        }
    }
}

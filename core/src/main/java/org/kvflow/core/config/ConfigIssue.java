package org.kvflow.core.config;

import java.util.Objects;

/** One finding of startup validation: an error ({@code E-…}) or a normalisation warning ({@code W-HC-NORM}). */
public record ConfigIssue(String code, String message) {
    public ConfigIssue {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return code + ": " + message;
    }
}

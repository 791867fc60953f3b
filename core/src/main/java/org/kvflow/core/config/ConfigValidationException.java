package org.kvflow.core.config;

import java.util.List;
import org.kvflow.core.KvflowException;

/** Startup aborted (contract §10): carries every failing check in contract order; {@link #code()} is the first. */
public final class ConfigValidationException extends KvflowException {
    private final List<ConfigIssue> errors;

    public ConfigValidationException(List<ConfigIssue> errors) {
        super(summary(errors));
        this.errors = List.copyOf(errors);
    }

    private static String summary(List<ConfigIssue> errors) {
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a validation failure needs at least one error");
        }
        return errors.size() + (errors.size() == 1 ? " startup check failed: " : " startup checks failed: ") + errors;
    }

    /** The primary code: the first failing check's. */
    @Override
    public String code() {
        return errors.getFirst().code();
    }

    public List<ConfigIssue> errors() {
        return errors;
    }
}

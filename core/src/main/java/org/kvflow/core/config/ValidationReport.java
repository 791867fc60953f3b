package org.kvflow.core.config;

import java.util.List;

/**
 * The outcome of {@link StartupValidator#validate}: the config after contract §10.3 normalisation, the
 * warnings for each change made, and every failing check in contract order.
 */
public record ValidationReport(CpSharedKvConfig normalized, List<ConfigIssue> warnings, List<ConfigIssue> errors) {
    public ValidationReport {
        warnings = List.copyOf(warnings);
        errors = List.copyOf(errors);
    }

    public boolean ok() {
        return errors.isEmpty();
    }

    /**
     * The normalised config, for startup.
     *
     * @throws ConfigValidationException carrying every error, if any check failed
     */
    public CpSharedKvConfig orThrow() {
        if (!ok()) {
            throw new ConfigValidationException(errors);
        }
        return normalized;
    }
}

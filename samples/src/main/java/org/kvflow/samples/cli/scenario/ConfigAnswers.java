package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.config.ConfigIssue;
import org.kvflow.core.config.ConfigJson;
import org.kvflow.core.config.ValidationReport;

/**
 * The answer object of the {@code config} scenario kind: {@code {"ok":true,"normalized":…,"warnings":[…]}}
 * or {@code {"ok":false,"errors":[{"code":…,"message":…}]}}. Also {@code validate-config --json}.
 */
public final class ConfigAnswers {
    private ConfigAnswers() {}

    public static ObjectNode answer(ValidationReport report) {
        ObjectNode out = Json.object().put("ok", report.ok());
        if (report.ok()) {
            out.set("normalized", ConfigJson.write(report.normalized()));
            issues(out.putArray("warnings"), report.warnings());
        } else {
            issues(out.putArray("errors"), report.errors());
        }
        return out;
    }

    private static void issues(ArrayNode into, List<ConfigIssue> issues) {
        for (ConfigIssue issue : issues) {
            into.addObject().put("code", issue.code()).put("message", issue.message());
        }
    }
}

package org.kvflow.samples.demo;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.core.Failures;
import org.kvflow.operators.PrefillResult;

/**
 * The first few failed requests of a run, each as its id and why it failed in one line, so a demo
 * that reports failures also says which requests and what went wrong. Not thread-safe: the demo
 * adds results one at a time.
 */
final class FirstFailures {
    /** How many failures are kept; later ones are only counted by the report. */
    static final int KEPT = 5;

    private final List<String> lines = new ArrayList<>();

    /** Keeps {@code failed} as {@code <request id>: <error type>: <first line of its message>} while fewer than {@link #KEPT} are kept. */
    void add(PrefillResult.Failed failed) {
        if (lines.size() < KEPT) {
            lines.add(failed.request().id() + ": " + Failures.brief(failed.error()));
        }
    }

    /** {@return the failures kept, in the order they came} */
    List<String> lines() {
        return List.copyOf(lines);
    }
}

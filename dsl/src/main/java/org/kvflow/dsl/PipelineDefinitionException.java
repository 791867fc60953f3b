package org.kvflow.dsl;

import java.util.List;
import org.kvflow.core.KvflowException;

/** {@code build()} found problems: every one is listed, each naming the offending setting. */
public final class PipelineDefinitionException extends KvflowException {
    private final List<String> problems;

    /**
     * The problems of one {@code build()}.
     *
     * @param problems every problem found, each naming its setting
     */
    public PipelineDefinitionException(List<String> problems) {
        super(problems.size() + (problems.size() == 1 ? " problem: " : " problems: ") + problems);
        this.problems = List.copyOf(problems);
    }

    /**
     * The problems, in the order found.
     *
     * @return an unmodifiable list of messages
     */
    public List<String> problems() {
        return problems;
    }
}

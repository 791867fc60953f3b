package org.kvflow.core.json;

import org.kvflow.core.KvflowException;

/**
 * Input that does not follow the file format at all (a missing required field, a wrong type, an
 * unknown field, a number out of its range), as opposed to valid input whose answer is a
 * rejection. Carries the JSON path of the offending field, e.g. {@code $.queue[0].extendLen}.
 */
public final class MalformedInputException extends KvflowException {
    private final String path;
    private final String reason;

    public MalformedInputException(String path, String reason) {
        super(path + ": " + reason);
        this.path = path;
        this.reason = reason;
    }

    public String path() {
        return path;
    }

    public String reason() {
        return reason;
    }
}

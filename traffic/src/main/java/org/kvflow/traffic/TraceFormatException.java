package org.kvflow.traffic;

/** A trace line that cannot be a request, naming the file and the line. */
public final class TraceFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * A bad trace.
     *
     * @param message what is wrong, naming the file and the line
     */
    public TraceFormatException(String message) {
        super(message);
    }
}

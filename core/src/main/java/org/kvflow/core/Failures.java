package org.kvflow.core;

/**
 * Failures told in one line: a cause's type and the first line of its message, so a native
 * library that does not load reads as its name, not as the dozens of lines JCuda and Aparapi put
 * in their messages. With the environment variable {@code KVFLOW_TRACE=1} the whole message stays.
 */
public final class Failures {
    private Failures() {}

    /**
     * {@code e} in one line: its simple type name and its message's first line.
     *
     * @param e the failure
     * @return e.g. {@code UnsatisfiedLinkError: Error while loading native library "JCudaDriver-12.0.0-linux-x86_64"}
     */
    public static String brief(Throwable e) {
        return brief(e, "1".equals(System.getenv("KVFLOW_TRACE")));
    }

    /** {@link #brief(Throwable)}, keeping the whole message when {@code whole}. */
    static String brief(Throwable e, boolean whole) {
        String message = e.getMessage();
        if (whole || message == null) {
            return whole ? e.toString() : e.getClass().getSimpleName();
        }
        int end = message.indexOf('\n');
        String first = (end < 0 ? message : message.substring(0, end)).strip();
        return e.getClass().getSimpleName() + ": " + first;
    }
}

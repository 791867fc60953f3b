package org.kvflow.core;

/**
 * Root of every error kvflow raises on purpose. Subclasses carry the offending values as fields
 * and name them in the message (which request, which page, which flag).
 */
public class KvflowException extends RuntimeException {
    public KvflowException(String message) {
        super(message);
    }

    public KvflowException(String message, Throwable cause) {
        super(message, cause);
    }
}

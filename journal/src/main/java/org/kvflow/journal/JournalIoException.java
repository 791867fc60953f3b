package org.kvflow.journal;

import org.kvflow.core.KvflowException;

/** The journal cannot be opened, appended to or rolled (location unwritable, not a directory, I/O failure). Nothing was written. */
public class JournalIoException extends KvflowException {
    /**
     * A failure without an underlying cause.
     *
     * @param message what failed, naming the journal's path
     */
    public JournalIoException(String message) {
        super(message);
    }

    /**
     * A failure with its I/O cause.
     *
     * @param message what failed, naming the journal's path
     * @param cause   the underlying failure
     */
    public JournalIoException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public String code() {
        return "HC-JOURNAL";
    }
}

package org.kvflow.journal;

import org.kvflow.core.KvflowException;

/** The journal cannot be opened, appended to or rolled (location unwritable, not a directory, I/O failure). Nothing was written. */
public class JournalIoException extends KvflowException {
    public JournalIoException(String message) {
        super(message);
    }

    public JournalIoException(String message, Throwable cause) {
        super(message, cause);
    }
}

package org.kvflow.journal.replay;

import org.kvflow.core.KvflowException;

/** A journal record that replay refuses (contract §11.4), named by its queue index. */
public final class JournalCorruptionException extends KvflowException {
    private final long index;

    /**
     * A refused record.
     *
     * @param index  its queue index
     * @param reason why it is refused
     */
    public JournalCorruptionException(long index, String reason) {
        super("journal record " + Long.toHexString(index) + ": " + reason);
        this.index = index;
    }

    /**
     * Which record.
     *
     * @return its queue index
     */
    public long index() {
        return index;
    }
}

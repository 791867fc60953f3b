package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A token row outside the store it was to be written to; raised before any byte moves. */
public final class RowOutOfRangeException extends KvflowException {
    private final long row;

    public RowOutOfRangeException(String store, long row, long rows) {
        super(store + ": row " + row + " lies outside [0, " + rows + ")");
        this.row = row;
    }

    public long row() {
        return row;
    }
}

package org.kvflow.journal.record;

import org.kvflow.core.KvflowException;

/** A record that cannot be decoded as written; the replayer adds its index. */
public final class RecordDecodeException extends KvflowException {
    /**
     * A record that does not decode.
     *
     * @param reason what is wrong (truncated, unknown type or version, checksum mismatch)
     */
    public RecordDecodeException(String reason) {
        super(reason);
    }
}

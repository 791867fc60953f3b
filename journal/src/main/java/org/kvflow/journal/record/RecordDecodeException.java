package org.kvflow.journal.record;

import org.kvflow.core.KvflowException;

/** A record that cannot be decoded as written; the replayer adds its index. */
public final class RecordDecodeException extends KvflowException {
    public RecordDecodeException(String reason) {
        super(reason);
    }
}

package org.kvflow.journal.record;

import java.nio.ByteBuffer;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@code BACKUP}'s payload is decoded to instead of a new array: the caller's own memory (a
 * page of a host store, pinned staging), filled straight from the journal's mapped bytes while the
 * CRC32C runs over them. The bytes land before the record's CRC is checked: a target must not
 * treat them as good until the decoder returns without a {@link RecordDecodeException}.
 */
@FunctionalInterface
public interface PayloadTarget {
    /**
     * Buffers for the payload of the record {@code header} describes, filled in order from their
     * positions; their remaining bytes must add up to {@link BackupHeader#payloadLength()}.
     *
     * @param header the record's fields before the payload
     * @return the buffers, or null to skip the payload unread (and so unchecked)
     */
    @Nullable List<ByteBuffer> buffers(BackupHeader header);
}

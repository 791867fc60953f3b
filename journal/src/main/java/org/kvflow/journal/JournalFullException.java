package org.kvflow.journal;

/**
 * Too little free space for the next record (or the next cycle file): refused before writing,
 * because Chronicle writes through memory maps and a full disk would fault inside the mapping.
 */
public final class JournalFullException extends JournalIoException {
    private final long neededBytes;
    private final long freeBytes;

    /**
     * A refusal before writing.
     *
     * @param where       the journal directory or file that has no room
     * @param neededBytes the bytes the next record or cycle file needs
     * @param freeBytes   the bytes the file system has free
     */
    public JournalFullException(String where, long neededBytes, long freeBytes) {
        super(where + ": journal needs " + neededBytes + " free bytes, the file system has " + freeBytes);
        this.neededBytes = neededBytes;
        this.freeBytes = freeBytes;
    }

    /**
     * What the next write needed.
     *
     * @return bytes
     */
    public long neededBytes() {
        return neededBytes;
    }

    /**
     * What the file system had free.
     *
     * @return bytes
     */
    public long freeBytes() {
        return freeBytes;
    }
}

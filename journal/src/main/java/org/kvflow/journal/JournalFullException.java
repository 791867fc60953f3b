package org.kvflow.journal;

/**
 * Too little free space for the next record (or the next cycle file): refused before writing,
 * because Chronicle writes through memory maps and a full disk would fault inside the mapping.
 */
public final class JournalFullException extends JournalIoException {
    private final long neededBytes;
    private final long freeBytes;

    public JournalFullException(String where, long neededBytes, long freeBytes) {
        super(where + ": journal needs " + neededBytes + " free bytes, the file system has " + freeBytes);
        this.neededBytes = neededBytes;
        this.freeBytes = freeBytes;
    }

    public long neededBytes() {
        return neededBytes;
    }

    public long freeBytes() {
        return freeBytes;
    }
}

package org.kvflow.dsl;

/** Factories for the write stage. */
public final class Write {
    private Write() {}

    /**
     * Rows of each chunk to the rank that owns their page (contract §4.4 write rule).
     *
     * @return the stage
     */
    public static WriteSpec ownerRows() {
        return new WriteSpec();
    }
}

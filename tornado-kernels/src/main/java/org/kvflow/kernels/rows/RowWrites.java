package org.kvflow.kernels.rows;

import java.util.Arrays;

/**
 * Where each computed row goes ({@link StoreRows#store}): entries of (token of the chunk,
 * store index, row in that store), one per copy of a row (a replicated row has one per rank).
 * Kept as one flat table, the form the device reads. Not thread-safe.
 */
public final class RowWrites {
    private long[] table = new long[3 * 64];
    private int size;

    /** Token {@code token}'s row goes to row {@code row} of store {@code store}. */
    public RowWrites add(int token, int store, long row) {
        if (3 * size + 3 > table.length) {
            table = Arrays.copyOf(table, table.length * 2);
        }
        table[3 * size] = token;
        table[3 * size + 1] = store;
        table[3 * size + 2] = row;
        size++;
        return this;
    }

    /** How many rows are written. */
    public int size() {
        return size;
    }

    /** Forgets every entry (the table is reused). */
    public void clear() {
        size = 0;
    }

    int token(int i) {
        return (int) table[3 * i];
    }

    int store(int i) {
        return (int) table[3 * i + 1];
    }

    long row(int i) {
        return table[3 * i + 2];
    }

    /** The first {@code 3 · size()} longs: token, store, row of each entry. */
    long[] table() {
        return table;
    }
}

package org.kvflow.kernels.api;

import org.kvflow.core.KvflowException;

/**
 * A graph consumes an array from the device ({@link TaskGraph#consumeFromDevice}) that no closed
 * plan persisted there; raised when the consuming plan is built.
 */
public final class NotPersistedException extends KvflowException {
    /** @param index the array's place in the graph's {@code consumeFromDevice} list */
    public NotPersistedException(String graph, int index, Object array, Device device) {
        super("graph " + graph + " consumes array " + index + " (" + array.getClass().getSimpleName() + ", " + ArrayBytes.of(array)
                + " bytes) from " + device.selector() + ", but no closed plan persisted it there");
    }
}

package org.kvflow.kernels.aparapi;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.kvflow.kernels.api.ArrayBytes;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.LongPages;

/**
 * Where the newest copy of each array of one graph is: on the host or in one twin's device
 * buffer. Every Aparapi kernel instance has an OpenCL context of its own, so two twins cannot
 * share a buffer: an array one task writes and the next reads goes through the host, and only
 * when the reader's copy is stale. Not thread-safe.
 */
final class DeviceCopies {
    /** Which copies of one array hold its newest value: the host's, and the buffers of these twins (at least one when not the host's). */
    private static final class Copies {
        boolean hostCurrent = true;
        final Set<AparapiTask> current = Collections.newSetFromMap(new IdentityHashMap<>());
    }

    private final Map<Object, Copies> arrays = new IdentityHashMap<>();
    private long bytesToDevice;
    private long bytesToHost;

    /** The caller changed {@code array} on the host: every device copy is stale. */
    void hostWrote(Object array) {
        Copies c = copies(array);
        c.hostCurrent = true;
        c.current.clear();
    }

    /** Makes {@code twin}'s buffer of {@code array} current before it launches. */
    void readyFor(AparapiTask twin, Object array) {
        Copies c = copies(array);
        if (c.current.contains(twin)) {
            return;
        }
        toHost(array);
        move(twin, array, true);
        c.current.add(twin);
    }

    /** {@code twin} wrote {@code array} on the device: its copy is now the only current one. */
    void deviceWrote(AparapiTask twin, Object array) {
        Copies c = copies(array);
        c.hostCurrent = false;
        c.current.clear();
        c.current.add(twin);
    }

    /** Brings the newest copy of {@code array} to the host, if the host's is stale. */
    void toHost(Object array) {
        Copies c = copies(array);
        if (!c.hostCurrent) {
            move(c.current.iterator().next(), array, false);
            c.hostCurrent = true;
        }
    }

    /** Bytes copied host → device so far. */
    long bytesToDevice() {
        return bytesToDevice;
    }

    /** Bytes copied device → host so far. */
    long bytesToHost() {
        return bytesToHost;
    }

    private Copies copies(Object array) {
        return arrays.computeIfAbsent(array, a -> new Copies());
    }

    private void move(AparapiTask twin, Object array, boolean toDevice) {
        long bytes = ArrayBytes.of(array);
        if (toDevice) {
            bytesToDevice += bytes;
        } else {
            bytesToHost += bytes;
        }
        switch (array) {
            case LongArray a -> twin.move(a.toHeapArray(), toDevice);
            case IntArray a -> twin.move(a.toHeapArray(), toDevice);
            case FloatArray a -> twin.move(a.toHeapArray(), toDevice);
            case ByteArray a -> twin.move(a.toHeapArray(), toDevice);
            case LongPages p -> {
                for (int c = 0; c < p.chunkCount(); c++) {
                    twin.move(p.chunk(c).toHeapArray(), toDevice);
                }
            }
            default -> throw new IllegalArgumentException("cannot move " + array.getClass().getSimpleName());
        }
    }
}

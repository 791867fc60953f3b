package org.kvflow.cuda.graph;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.LongPages;

/**
 * The device buffers of one plan: one per task-graph array (shared by every graph and task of the
 * plan) and one per heap array a twin holds itself; and, for twins, which buffer and offset a
 * heap array they were bound to lies at. Not thread-safe.
 */
final class DeviceArrays {
    /** Where a heap array lies on the device: a buffer, and a byte offset into it (a pool chunk's). */
    record Slot(DeviceArray array, long offset) {}

    private final CudaContext context;
    private final Map<Object, DeviceArray> buffers = new IdentityHashMap<>();
    private final Map<Object, Slot> heap = new IdentityHashMap<>();
    private final List<Object> consumed = new ArrayList<>();

    DeviceArrays(CudaContext context) {
        this.context = context;
    }

    /** The buffer of task-graph array {@code array}, allocated on first sight. */
    DeviceArray of(Object array, String what) {
        DeviceArray d = buffers.get(array);
        if (d == null) {
            long bytes = DeviceArray.bytesOf(array);
            d = new DeviceArray(array, context.allocate(what, bytes), bytes);
            register(d);
        }
        return d;
    }

    /** Takes over the buffer an earlier plan persisted for {@code array}; its device copy is the newest. */
    void adopt(DeviceArray persisted) {
        persisted.deviceWrote();
        consumed.add(persisted.array());
        register(persisted);
    }

    /** A buffer for a heap array a twin holds itself, copied to the device at its first use. */
    DeviceArray own(Object heapArray, String what) {
        return buffers.computeIfAbsent(heapArray, a -> {
            long bytes = DeviceArray.bytesOf(a);
            return new DeviceArray(a, context.allocate(what, bytes), bytes);
        });
    }

    /** Where {@code heapArray} (wrapped by a task-graph array of this plan) lies; null if no graph array wraps it. */
    @Nullable Slot slot(Object heapArray) {
        return heap.get(heapArray);
    }

    boolean contains(Object array) {
        return buffers.containsKey(array);
    }

    DeviceArray get(Object array) {
        return buffers.get(array);
    }

    Collection<DeviceArray> all() {
        return buffers.values();
    }

    /** Persists the buffers of {@code persisted} on the context and frees every other; after a failed open, gives consumed ones back too. */
    void release(Set<Object> persisted, boolean returnConsumed) {
        for (DeviceArray d : buffers.values()) {
            if (persisted.contains(d.array()) || (returnConsumed && consumed.contains(d.array()))) {
                context.persist(d);
            } else {
                context.free(d.address());
            }
        }
        buffers.clear();
        heap.clear();
    }

    private void register(DeviceArray d) {
        buffers.put(d.array(), d);
        switch (d.array()) {
            case LongArray a -> heap.put(a.toHeapArray(), new Slot(d, 0));
            case IntArray a -> heap.put(a.toHeapArray(), new Slot(d, 0));
            case FloatArray a -> heap.put(a.toHeapArray(), new Slot(d, 0));
            case ByteArray a -> heap.put(a.toHeapArray(), new Slot(d, 0));
            case LongPages p -> {
                for (int c = 0; c < p.chunkCount(); c++) {
                    heap.put(p.chunk(c).toHeapArray(), new Slot(d, DeviceArray.chunkOffset(p, c)));
                }
            }
            default -> throw new IllegalArgumentException("not a task-graph array: " + d.array().getClass().getSimpleName());
        }
    }
}

package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import jcuda.Pointer;
import org.kvflow.cuda.DevicePointer;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.LongPages;

/**
 * One array of a plan in one device allocation, and which copy is newest. {@code array} is a
 * task-graph array (a {@link LongPages} pool of any size is one allocation, its chunks at
 * consecutive offsets) or a heap array a twin holds itself (a table, scratch). Not thread-safe.
 */
final class DeviceArray {
    private final Object array;
    private final DevicePointer address;
    private final long bytes;
    /** The host copy holds the newest value. */
    boolean hostCurrent = true;
    /** The device copy holds the newest value. */
    boolean deviceCurrent;
    /** For page lists: the device copy was checked against its pool since it last changed. */
    boolean checked;

    DeviceArray(Object array, DevicePointer address, long bytes) {
        this.array = array;
        this.address = address;
        this.bytes = bytes;
    }

    Object array() {
        return array;
    }

    DevicePointer address() {
        return address;
    }

    long bytes() {
        return bytes;
    }

    /** The caller changed the host copy. */
    void hostWrote() {
        hostCurrent = true;
        deviceCurrent = false;
        checked = false;
    }

    /** A kernel wrote the device copy. */
    void deviceWrote() {
        deviceCurrent = true;
        hostCurrent = false;
        checked = false;
    }

    /** Copies the host copy to the device if the device's is stale; returns the bytes moved. */
    long ensureOnDevice() {
        if (deviceCurrent) {
            return 0;
        }
        if (array instanceof LongPages p) {
            for (int c = 0; c < p.chunkCount(); c++) {
                long[] chunk = p.chunk(c).toHeapArray();
                cuMemcpyHtoD(address.withByteOffset(chunkOffset(p, c)), Pointer.to(chunk), (long) chunk.length * Long.BYTES);
            }
        } else if (bytes > 0) {
            cuMemcpyHtoD(address, host(array), bytes);
        }
        deviceCurrent = true;
        return bytes;
    }

    /** Copies the device copy to the host if the host's is stale; returns the bytes moved. */
    long ensureOnHost() {
        if (hostCurrent) {
            return 0;
        }
        if (array instanceof LongPages p) {
            for (int c = 0; c < p.chunkCount(); c++) {
                long[] chunk = p.chunk(c).toHeapArray();
                cuMemcpyDtoH(Pointer.to(chunk), address.withByteOffset(chunkOffset(p, c)), (long) chunk.length * Long.BYTES);
            }
        } else if (bytes > 0) {
            cuMemcpyDtoH(host(array), address, bytes);
        }
        hostCurrent = true;
        return bytes;
    }

    /** Byte offset of chunk {@code c} of {@code pages} in its single allocation. */
    static long chunkOffset(LongPages pages, int c) {
        return (long) c * pages.pagesPerChunk() * pages.pageElems() * Long.BYTES;
    }

    /** Bytes of a task-graph array or of a heap array a twin holds. */
    static long bytesOf(Object array) {
        return switch (array) {
            case long[] a -> (long) a.length * Long.BYTES;
            case int[] a -> (long) a.length * Integer.BYTES;
            case float[] a -> (long) a.length * Float.BYTES;
            case double[] a -> (long) a.length * Double.BYTES;
            case byte[] a -> a.length;
            case short[] a -> (long) a.length * Short.BYTES;
            default -> org.kvflow.kernels.api.ArrayBytes.of(array);
        };
    }

    private static Pointer host(Object array) {
        return switch (array) {
            case LongArray a -> Pointer.to(a.toHeapArray());
            case IntArray a -> Pointer.to(a.toHeapArray());
            case FloatArray a -> Pointer.to(a.toHeapArray());
            case ByteArray a -> Pointer.to(a.toHeapArray());
            case long[] a -> Pointer.to(a);
            case int[] a -> Pointer.to(a);
            case float[] a -> Pointer.to(a);
            case double[] a -> Pointer.to(a);
            case byte[] a -> Pointer.to(a);
            case short[] a -> Pointer.to(a);
            default -> throw new IllegalArgumentException("cannot copy a " + array.getClass().getSimpleName() + " to or from the device");
        };
    }
}

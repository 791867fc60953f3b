package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.nio.ByteOrder;
import java.nio.LongBuffer;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUstream;

/**
 * One page memory's stream and the launch arguments it stages: page lists and tables go through a
 * pinned buffer into a device scratch in one asynchronous copy, both grown on demand. Every launch
 * runs through the memory's {@link LaunchClock} and is waited for. Not thread-safe: its memory
 * serializes calls.
 */
final class CudaStream implements AutoCloseable {
    private final CUstream stream = new CUstream();
    private final Pointer staging = new Pointer();
    private final DevicePointer scratch = new DevicePointer();
    private final LaunchClock clock;
    private long scratchBytes;
    /** Counts what was staged; a staged table is still in scratch while the count it was staged at is current. */
    private long staged;

    CudaStream(LaunchClock clock) {
        this.clock = clock;
        cuStreamCreate(stream, 0);
    }

    CUstream stream() {
        return stream;
    }

    /**
     * {@code parts}, one after the other, in the device scratch (one asynchronous copy on the
     * stream); returns where the first lies, the others following it.
     */
    DevicePointer stage(long[]... parts) {
        return stageWithRoom(0, parts);
    }

    /**
     * {@link #stage}, the scratch holding {@code roomBytes} more after the parts, uncopied: where a
     * kernel writes what the host reads back.
     */
    DevicePointer stageWithRoom(long roomBytes, long[]... parts) {
        long longs = 0;
        for (long[] part : parts) {
            longs += part.length;
        }
        long bytes = longs * Sizeof.LONG;
        LongBuffer out = staging(Math.max(Sizeof.LONG, bytes), Math.max(Sizeof.LONG, bytes) + roomBytes);
        for (long[] part : parts) {
            out.put(part);
        }
        cuMemcpyHtoDAsync(scratch, staging, bytes, stream);
        return scratch;
    }

    /** The first {@code length} longs of {@code table} in the device scratch; returns the stage count that stays current while they are there. */
    long stageTable(long[] table, int length) {
        long bytes = (long) length * Sizeof.LONG;
        staging(bytes, bytes).put(table, 0, length);
        cuMemcpyHtoDAsync(scratch, staging, bytes, stream);
        return staged;
    }

    /** Whether what was staged at {@code count} is still in the scratch. */
    boolean holds(long count) {
        return count == staged;
    }

    /** The device scratch, where the last staged arguments lie. */
    DevicePointer scratch() {
        return scratch;
    }

    /** Runs one kernel launch through the clock and waits for the stream. */
    void launch(Runnable launch) {
        clock.launch(stream, launch);
        cuStreamSynchronize(stream);
    }

    /**
     * Copies {@code into.length} ints from {@code offsetBytes} into the scratch back to the host, on
     * this stream (through the pinned staging buffer, so no other stream's work is waited for), and
     * waits for it.
     */
    void readInts(long offsetBytes, int[] into) {
        long bytes = (long) into.length * Sizeof.INT;
        cuMemcpyDtoHAsync(staging.withByteOffset(offsetBytes), scratch.withByteOffset(offsetBytes), bytes, stream);
        cuStreamSynchronize(stream);
        staging.getByteBuffer(offsetBytes, bytes).order(ByteOrder.nativeOrder()).asIntBuffer().get(into);
    }

    /** Waits for everything enqueued on the stream. */
    void sync() {
        cuStreamSynchronize(stream);
    }

    /** The pinned staging buffer's first {@code bytes}, the scratch grown to at least {@code scratchNeeded} bytes first. */
    private LongBuffer staging(long bytes, long scratchNeeded) {
        staged++;
        if (scratchNeeded > scratchBytes) {
            long size = Math.max(scratchNeeded, 1 << 20);
            freeScratch();
            cuMemAlloc(scratch, size);
            cuMemHostAlloc(staging, size, 0);
            scratchBytes = size;
        }
        return staging.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder()).asLongBuffer();
    }

    private void freeScratch() {
        if (scratchBytes > 0) {
            cuMemFree(scratch);
            cuMemFreeHost(staging);
            scratchBytes = 0;
        }
    }

    /** Frees the scratch and destroys the stream; the device's context must be current. */
    @Override
    public void close() {
        freeScratch();
        cuStreamDestroy(stream);
    }
}

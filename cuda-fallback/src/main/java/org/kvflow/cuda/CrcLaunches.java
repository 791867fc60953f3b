package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUfunction;

/**
 * The CRC32C kernel's launches on one stream ({@code crc32c.cu}): the ranges' addresses and
 * lengths staged in one upload, one launch (a warp a range), the checksums read back. Callers check
 * the ranges. Not thread-safe.
 */
final class CrcLaunches {
    private static final int BLOCK = 256;
    private static final int RANGES_PER_BLOCK = BLOCK / 32;
    private static final int MAX_BLOCKS = 65_535;

    private final CudaDevice device;
    private final CudaStream stream;

    /** The kernel's module loads at the first checksum, not when the memory opens: most memories never checksum in place. */
    CrcLaunches(CudaDevice device, CudaStream stream) {
        this.device = device;
        this.stream = stream;
    }

    /** The CRC32C of each range {@code [addresses[i], addresses[i] + lengths[i])} of device-addressable memory. */
    int[] crc32c(long[] addresses, long[] lengths) {
        int count = addresses.length;
        int[] crcs = new int[count];
        if (count == 0) {
            return crcs;
        }
        CUfunction kernel = device.function(CudaKernels.CRC32C_RANGES); // loaded once, then cached by the device
        DevicePointer table = stream.stage(addresses, lengths, new long[(count + 1) / 2]); // the kernel writes the checksums after the lengths
        Pointer args = Pointer.to(Pointer.to(table), Pointer.to(new int[] {count}));
        int blocks = Math.min(MAX_BLOCKS, (count + RANGES_PER_BLOCK - 1) / RANGES_PER_BLOCK);
        stream.launch(() -> cuLaunchKernel(kernel, blocks, 1, 1, BLOCK, 1, 1, 0, stream.stream(), args, null));
        cuMemcpyDtoH(Pointer.to(crcs), table.withByteOffset(2L * count * Sizeof.LONG), (long) count * Sizeof.INT);
        return crcs;
    }
}

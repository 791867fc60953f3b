package org.kvflow.cuda;

import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageMemoryProvider;

/** Registers the {@code cuda} page memory ({@code cuda:<ordinal>}) with {@link java.util.ServiceLoader}. */
public final class CudaPageMemoryProvider implements PageMemoryProvider {
    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public PageMemory open(int ordinal) {
        return new CudaPageMemory(ordinal);
    }

    /** The driver's device count; 0 where there is no driver or device. */
    @Override
    public int devices() {
        try {
            jcuda.driver.JCudaDriver.setExceptionsEnabled(true);
            jcuda.driver.JCudaDriver.cuInit(0);
            int[] count = new int[1];
            jcuda.driver.JCudaDriver.cuDeviceGetCount(count);
            return count[0];
        } catch (Throwable e) { // UnsatisfiedLinkError without libcuda, CudaException without a device
            return 0;
        }
    }
}

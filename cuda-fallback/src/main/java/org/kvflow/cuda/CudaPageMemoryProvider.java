package org.kvflow.cuda;

import org.kvflow.kernels.pages.PageMemory;
import org.kvflow.kernels.pages.PageMemoryProvider;

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
}

package org.kvflow.cuda;

import org.kvflow.kernels.copy.PageCopier;
import org.kvflow.kernels.copy.PageCopierProvider;

/** Registers the {@code cuda} copier (device 0) with {@link java.util.ServiceLoader}. */
public final class CudaPageCopierProvider implements PageCopierProvider {
    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public PageCopier open() {
        return new CudaPageCopier(0);
    }
}

package org.kvflow.dsl;

import org.kvflow.operators.materialize.QuerySampler;

/** Factories for the materialization stage. */
public final class FullView {
    private FullView() {}

    /**
     * Full views, with the compute kernels on the named backend: {@code java}, {@code opencl} or
     * {@code opencl:<n>}, or {@code auto} (an OpenCL GPU, then an OpenCL CPU, then Java). There run
     * the write stage's rows of the layer (floats and fp8 quantisation) and the attention step (indexer scores, top-k,
     * sparse attention). Pages live in host memory in this version, so the gather itself is a host
     * copy; {@code cuda} is refused at build() until the CUDA copier is wired in.
     */
    public static MaterializeSpec copier(String backend) {
        return new MaterializeSpec(backend, null, QuerySampler.NONE);
    }
}

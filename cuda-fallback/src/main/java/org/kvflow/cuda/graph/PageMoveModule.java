package org.kvflow.cuda.graph;

import jcuda.driver.CUfunction;
import org.kvflow.cuda.CudaKernels;

/** The hand-written {@code page_move} kernels (src/main/cuda/page_move.cu) in a context: 16-byte and 8-byte units. */
record PageMoveModule(CUfunction v4, CUfunction v2) {
    private static final String RESOURCE = "/cuda/page_move.fatbin";

    static PageMoveModule in(CudaContext context) {
        return new PageMoveModule(context.function("page_move", "page_move_v4", () -> CudaKernels.resource(RESOURCE)),
                context.function("page_move", "page_move_v2", () -> CudaKernels.resource(RESOURCE)));
    }
}

package org.kvflow.cuda.graph;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import jcuda.driver.CUfunction;

/** The hand-written {@code page_move} kernels (src/main/cuda/page_move.cu) in a context: 16-byte and 8-byte units. */
record PageMoveModule(CUfunction v4, CUfunction v2) {
    private static final String RESOURCE = "/cuda/page_move.fatbin";

    static PageMoveModule in(CudaContext context) {
        return new PageMoveModule(context.function("page_move", "page_move_v4", PageMoveModule::fatbin),
                context.function("page_move", "page_move_v2", PageMoveModule::fatbin));
    }

    private static byte[] fatbin() {
        try (InputStream in = PageMoveModule.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("kernel resource " + RESOURCE + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(RESOURCE, e);
        }
    }
}

package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;

import java.util.List;
import java.util.function.Consumer;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;

/**
 * A task's kernel launches captured once as a CUDA graph and replayed with one graph launch, so
 * that a kernel of several passes costs the host one call, not one launch (and its argument
 * marshalling) a pass. The graph is captured again whenever what the launches were built from
 * (the caller's key: grid, passes, scalar arguments) differs from the last capture. Not thread-safe.
 */
final class LaunchReplay implements AutoCloseable {
    private CUgraphExec exec;
    private List<Object> capturedFor = List.of();

    /** Enqueues on {@code stream} what {@code launches} enqueues, through the graph captured for {@code key}. */
    void launch(CUstream stream, List<Object> key, Consumer<CUstream> launches) {
        if (exec == null || !capturedFor.equals(key)) {
            close();
            CUgraph graph = new CUgraph();
            cuStreamBeginCapture(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
            try {
                launches.accept(stream);
            } catch (RuntimeException | Error e) {
                endAndDrop(stream, graph, e);
                throw e;
            }
            cuStreamEndCapture(stream, graph);
            try {
                CUgraphExec instantiated = new CUgraphExec();
                cuGraphInstantiate(instantiated, graph, 0);
                exec = instantiated;
                capturedFor = List.copyOf(key);
            } finally {
                cuGraphDestroy(graph);
            }
        }
        cuGraphLaunch(exec, stream);
    }

    /**
     * Ends the capture that failed launches left open, so the stream takes work again, and frees the
     * graph it returns: none where a failed launch invalidated the capture, a whole one where the
     * failure came before or after the launches. The launches' failure stays the one thrown.
     */
    private static void endAndDrop(CUstream stream, CUgraph graph, Throwable failure) {
        try {
            cuStreamEndCapture(stream, graph);
            if (!graph.equals(new CUgraph())) {
                cuGraphDestroy(graph);
            }
        } catch (RuntimeException e) { // an invalidated capture ends with an error of its own
            failure.addSuppressed(e);
        }
    }

    /** Frees the captured graph; the next launch captures again. */
    @Override
    public void close() {
        if (exec != null) {
            cuGraphExecDestroy(exec);
            exec = null;
            capturedFor = List.of();
        }
    }
}

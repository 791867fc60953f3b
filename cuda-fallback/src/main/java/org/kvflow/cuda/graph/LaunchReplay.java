package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;

import java.util.List;
import java.util.function.Consumer;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
import jcuda.driver.CUstream_flags;

/**
 * A task's kernel launches captured as a CUDA graph and replayed with one graph launch, so that
 * the host's work for a launch (argument marshalling and one driver call a pass) is paid once, not
 * at every execute. What the launches are built from (the caller's key: grid, passes, scalar
 * arguments) decides: a key met for the first time, or different from the call before, is launched
 * directly; a key met twice in a row is captured and replayed from then on, until another key is
 * captured. So a task whose arguments change at every call (a causal step's key count) pays no
 * capture it cannot use again.
 *
 * <p>The capture records on a stream of its own that does not synchronize with the legacy default
 * stream ({@code CU_STREAM_NON_BLOCKING}); the graph then runs on the caller's stream. While a
 * stream that does synchronize with it captures, the legacy stream is unusable: every synchronous
 * copy or memset another thread of the process makes (page memories, device arrays) fails, or
 * breaks the capture. Not thread-safe.
 */
final class LaunchReplay implements AutoCloseable {
    private final ReplayChoice choice = new ReplayChoice();
    private CUgraphExec exec;
    /** Where captures record, made in the caller's context at the first capture. */
    private CUstream captureStream;

    /** Enqueues on {@code stream} what {@code launches} enqueues: directly, or through the graph captured for {@code key}. */
    void launch(CUstream stream, List<Object> key, Consumer<CUstream> launches) {
        switch (choice.next(key)) {
            case DIRECT -> launches.accept(stream);
            case CAPTURE -> {
                freeGraph();
                exec = capture(captureStream(), launches);
                cuGraphLaunch(exec, stream);
            }
            case REPLAY -> cuGraphLaunch(exec, stream);
        }
    }

    /** The graph of what {@code launches} enqueues on {@code stream}, captured there; if they throw, the capture is ended and nothing is kept. */
    private CUgraphExec capture(CUstream stream, Consumer<CUstream> launches) {
        CUgraph graph = new CUgraph();
        cuStreamBeginCapture(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
        try {
            launches.accept(stream);
        } catch (RuntimeException | Error e) {
            choice.forget();
            endAndDrop(stream, graph, e);
            throw e;
        }
        cuStreamEndCapture(stream, graph);
        try {
            CUgraphExec instantiated = new CUgraphExec();
            cuGraphInstantiate(instantiated, graph, 0);
            return instantiated;
        } catch (RuntimeException | Error e) {
            choice.forget();
            throw e;
        } finally {
            cuGraphDestroy(graph);
        }
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

    private CUstream captureStream() {
        if (captureStream == null) {
            CUstream made = new CUstream();
            cuStreamCreate(made, CUstream_flags.CU_STREAM_NON_BLOCKING);
            captureStream = made;
        }
        return captureStream;
    }

    /** Frees the captured graph and the capture stream; later calls start over (a key launched directly first). */
    @Override
    public void close() {
        freeGraph();
        choice.forget();
        if (captureStream != null) {
            cuStreamDestroy(captureStream);
            captureStream = null;
        }
    }

    private void freeGraph() {
        if (exec != null) {
            cuGraphExecDestroy(exec);
            exec = null;
        }
    }
}

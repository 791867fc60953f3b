package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUstream;
import org.kvflow.cuda.CudaKernels;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * {@code IndexerKernels.scoreFp8} on the cuda device, a prebuilt task as TornadoVM has them: index
 * dims that are a multiple of 16 up to 128 run the hand-written tensor-core kernel
 * ({@code src/main/cuda/index_scores.cu}: the keys' fp8 codes exact in fp16, each query split into
 * two fp16 parts, fp32 sums), any other dim the twin's translation. Both read the shape from its
 * array at each execution, as the twin always has, and the shape is checked against the arrays
 * before either launches. A shape that repeats is replayed from a captured graph ({@link LaunchReplay}).
 */
final class IndexScoreLaunch implements Launch {
    static final String KERNEL = "org.kvflow.kernels.nsa.IndexerKernels.scoreFp8";
    private static final String RESOURCE = "/cuda/index_scores.fatbin";

    private final String task;
    private final TwinLaunch twin;
    private final CudaContext context;
    private final FloatArray queries;
    private final ByteArray keys;
    private final FloatArray scales;
    private final IntArray shape;
    private final FloatArray scores;
    private final DeviceArray queryBuffer;
    private final DeviceArray keyBuffer;
    private final DeviceArray scaleBuffer;
    private final DeviceArray scoreBuffer;
    private ScoreGrid grid = new ScoreGrid(0, 0, 0, 0);
    private final LaunchReplay replay = new LaunchReplay();

    /** {@code args} are the task's ({@code queries, keys, keyScales, shape, scores}); {@code twin} runs the dims the kernel does not take. */
    IndexScoreLaunch(String task, List<Object> args, DeviceArrays buffers, CudaContext context, TwinLaunch twin) {
        this.task = task;
        this.twin = twin;
        this.context = context;
        this.queries = (FloatArray) args.get(0);
        this.keys = (ByteArray) args.get(1);
        this.scales = (FloatArray) args.get(2);
        this.shape = (IntArray) args.get(3);
        this.scores = (FloatArray) args.get(4);
        this.queryBuffer = buffers.of(queries, task + " queries");
        this.keyBuffer = buffers.of(keys, task + " keys");
        this.scaleBuffer = buffers.of(scales, task + " key scales");
        this.scoreBuffer = buffers.of(scores, task + " scores");
    }

    @Override
    public String task() {
        return task;
    }

    /** The twin's: every argument, the scores too (entries past the shape are left as they are). */
    @Override
    public List<DeviceArray> reads() {
        return twin.reads();
    }

    @Override
    public List<DeviceArray> writes() {
        return twin.writes();
    }

    /** Checks the shape against the arrays and picks the kernel for it. */
    @Override
    public long check(boolean mayRead) {
        int dim = shape.get(0);
        int nq = shape.get(1);
        int nk = shape.get(2);
        ScoreGrid.requireFits(task, dim, nq, nk, queries.getSize(), keys.getSize(), scales.getSize(), scores.getSize());
        grid = ScoreGrid.of(dim, nq, nk, context.multiprocessors());
        return 0;
    }

    @Override
    public void enqueue(CUstream stream) {
        if (!grid.prebuilt()) {
            twin.enqueue(stream);
            return;
        }
        if (grid.empty()) {
            return;
        }
        int nq = shape.get(1);
        int nk = shape.get(2);
        ScoreGrid run = grid;
        replay.launch(stream, List.of(run, nq, nk), captured -> {
            Pointer params = Pointer.to(Pointer.to(queryBuffer.address()), Pointer.to(keyBuffer.address()), Pointer.to(scaleBuffer.address()),
                    Pointer.to(scoreBuffer.address()), Pointer.to(new int[] {nq}), Pointer.to(new int[] {nk}), Pointer.to(new int[] {run.span()}));
            cuLaunchKernel(context.function("index_scores", "index_scores_d" + run.steps(), () -> CudaKernels.resource(RESOURCE)),
                    run.queryBlocks(), run.spans(), 1, ScoreGrid.THREADS, 1, 1, 0, captured, params, null);
        });
    }

    /** Frees the captured graphs, the twin's too. */
    @Override
    public void close() {
        replay.close();
        twin.close();
    }
}

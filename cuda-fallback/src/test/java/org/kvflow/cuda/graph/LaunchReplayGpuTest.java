package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.cuda.CudaDevice;
import org.kvflow.kernels.api.Devices;

/**
 * On the GPU machine (tag {@code cuda}): a launch replay that captures while another thread of the
 * process makes synchronous copies (the legacy default stream, as the page memories' reads and
 * writes do) breaks neither. The caller's stream synchronizes with the legacy stream, as our streams
 * do; captured on it, the other thread's copies failed (or broke the capture) and the demo over
 * cuda-ipc lost requests.
 */
@Tag("cuda")
class LaunchReplayGpuTest {
    private static final int WORDS = 1 << 16;

    @Test
    void capturesAndAnotherThreadsSynchronousCopiesBothSucceed() throws Exception {
        assumeTrue(Devices.best("cuda").isPresent(), "no CUDA device: " + Devices.all());
        CudaDevice device = CudaDevice.open(0);
        device.makeCurrent();
        CUstream stream = new CUstream();
        cuStreamCreate(stream, 0); // blocking with respect to the legacy stream, as the sessions' and page memories' streams are
        CUdeviceptr target = new CUdeviceptr();
        CUdeviceptr other = new CUdeviceptr();
        cuMemAlloc(target, 4L * WORDS);
        cuMemAlloc(other, 4L * WORDS);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> copyFailure = new AtomicReference<>();
        int[] copies = {0};
        Thread copier = new Thread(() -> {
            device.makeCurrent();
            int[] words = new int[WORDS];
            try {
                while (!done.get()) {
                    cuMemcpyHtoD(other, Pointer.to(words), 4L * WORDS);
                    copies[0]++;
                }
            } catch (Throwable e) {
                copyFailure.set(e);
            }
        });
        try (LaunchReplay replay = new LaunchReplay()) {
            copier.start();
            int[] back = new int[WORDS];
            for (int i = 0; i < 400; i++) {
                int value = i / 2; // each key twice in a row: the second call captures
                replay.launch(stream, List.of(value), s -> cuMemsetD32Async(target, value, WORDS, s));
                cuStreamSynchronize(stream);
                if (i % 50 == 1) {
                    cuMemcpyDtoH(Pointer.to(back), target, 4L * WORDS);
                    assertThat(back[0]).isEqualTo(value);
                    assertThat(back[WORDS - 1]).isEqualTo(value);
                }
            }
        } finally {
            done.set(true);
            copier.join();
            device.makeCurrent();
            cuMemFree(target);
            cuMemFree(other);
            cuStreamDestroy(stream);
        }
        assertThat(copyFailure.get()).as("the other thread's synchronous copies").isNull();
        assertThat(copies[0]).as("copies made beside the captures").isPositive();
    }
}

package org.kvflow.kernels.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.gather.GatherKernels;
import org.kvflow.kernels.quant.QuantKernels;

/** Plans refuse misuse with typed errors, and a kernel with no OpenCL twin never runs elsewhere silently. */
class ExecutionPlanTest {
    /** A kernel only the Java backend knows. */
    public static void javaOnly(LongArray a, IntArray b, int c, LongArray d) {
        d.set(0, a.get(0) + b.getSize() + c);
    }

    private static ImmutableTaskGraph gather(LongPages pool, IntArray ids, LongPages view) {
        return new TaskGraph("g").transferToDevice(DataTransferMode.FIRST_EXECUTION, pool, ids)
                .task("pages", GatherKernels::gatherPages, pool, ids, view).transferToHost(DataTransferMode.EVERY_EXECUTION, view).snapshot();
    }

    @Test
    void aPlanNeedsAGraphAndKeepsItsDeviceOnceItRan() {
        assertThatThrownBy(ExecutionPlan::new).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an execution plan needs at least one task graph");
        LongPages pool = LongPages.of(LongArray.fromArray(new long[] {5, 6}), 1);
        LongPages view = LongPages.allocate(1, 1);
        try (ExecutionPlan plan = new ExecutionPlan(gather(pool, IntArray.fromArray(new int[] {1}), view)).withDevice(Devices.java())) {
            assertThat(plan.execute().device()).isEqualTo(Devices.java());
            assertThat(view.get(0, 0)).isEqualTo(6);
            assertThatThrownBy(() -> plan.withDevice(Devices.java())).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("plan already runs on java (Java reference");
        }
    }

    @Tag("accelerator")
    @Test
    void aKernelWithoutATwinIsRefusedWhenThePlanIsBuiltNamingIt() {
        Device device = AcceleratorUnderTest.get();
        LongArray out = new LongArray(1);
        ImmutableTaskGraph graph = new TaskGraph("g").task("t", ExecutionPlanTest::javaOnly, new LongArray(1), new IntArray(0), 1, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out).snapshot();
        assertThatThrownBy(() -> new ExecutionPlan(graph).withDevice(device)).isInstanceOfSatisfying(KernelCompileException.class, e -> {
            assertThat(e.kernel()).isEqualTo("org.kvflow.kernels.api.ExecutionPlanTest.javaOnly");
            assertThat(e.getMessage()).isEqualTo("kernel org.kvflow.kernels.api.ExecutionPlanTest.javaOnly cannot run on " + device.selector()
                    + ": it has no Aparapi twin" + " (task g.t)");
        });
        try (ExecutionPlan plan = new ExecutionPlan(graph).withDevice(Devices.java())) {
            plan.execute();
            assertThat(out.get(0)).isEqualTo(1);
        }
    }

    /**
     * Plan A quantises and leaves scales and codes on the device; plan B dequantises them where
     * they lie; plan C, the control, dequantises the same arrays copied from the host.
     */
    private static ExecutionProfile[] quantiseThenDequantise(Device device, FloatArray x, FloatArray back) {
        FloatArray scales = new FloatArray(8);
        ByteArray codes = new ByteArray(1024);
        ImmutableTaskGraph quantise = new TaskGraph("quantise").transferToDevice(DataTransferMode.FIRST_EXECUTION, x)
                .task("q", QuantKernels::quantizeTiles, x, 256, 128, scales, codes).persistOnDevice(scales, codes).snapshot();
        ImmutableTaskGraph dequantise = new TaskGraph("dequantise").consumeFromDevice(scales, codes)
                .task("d", QuantKernels::dequantizeTiles, codes, 256, 128, scales, back).transferToHost(DataTransferMode.EVERY_EXECUTION, back)
                .snapshot();
        ExecutionProfile[] profiles = new ExecutionProfile[3];
        try (ExecutionPlan a = new ExecutionPlan(quantise).withDevice(device)) {
            profiles[0] = a.execute().profile();
        }
        try (ExecutionPlan b = new ExecutionPlan(dequantise).withDevice(device)) {
            profiles[1] = b.execute().profile();
        }
        assertThatThrownBy(() -> new ExecutionPlan(dequantise).withDevice(device)).isInstanceOf(NotPersistedException.class)
                .hasMessage("graph dequantise consumes array 0 (FloatArray, 32 bytes) from " + device.selector()
                        + ", but no closed plan persisted it there");
        ImmutableTaskGraph control = new TaskGraph("control").transferToDevice(DataTransferMode.FIRST_EXECUTION, scales, codes)
                .task("d", QuantKernels::dequantizeTiles, codes, 256, 128, scales, new FloatArray(1024)).snapshot();
        try (ExecutionPlan c = new ExecutionPlan(control).withDevice(device)) {
            profiles[2] = c.execute().profile();
        }
        return profiles;
    }

    private static FloatArray randomRows() {
        Random rnd = new Random(3);
        FloatArray x = new FloatArray(1024);
        for (int i = 0; i < x.getSize(); i++) {
            x.set(i, (float) rnd.nextGaussian());
        }
        return x;
    }

    @Test
    void aConsumedArrayMustHaveBeenPersistedOnThatDevice() {
        FloatArray back = new FloatArray(1024);
        ExecutionProfile[] profiles = quantiseThenDequantise(Devices.java(), randomRows(), back);
        assertThat(profiles[0].hostBytes() + profiles[1].hostBytes()).isZero();
        assertThat(profiles[1].taskNanos()).containsOnlyKeys("dequantise.d");
        assertThat(back.get(5)).isNotZero();
    }

    /**
     * On cuda the consumed arrays do not cross the host: the consuming plan uploads exactly their
     * bytes less than the control that takes them from the host. On OpenCL (buffers die with their
     * kernel) they go through the host, as in the control.
     */
    @Tag("accelerator")
    @Test
    void aPersistedArrayReachesTheConsumingPlanWithItsNewestValue() {
        Device device = AcceleratorUnderTest.get();
        FloatArray x = randomRows();
        FloatArray expected = new FloatArray(1024);
        FloatArray actual = new FloatArray(1024);
        quantiseThenDequantise(Devices.java(), x, expected);
        ExecutionProfile[] profiles = quantiseThenDequantise(device, x, actual);
        assertThat(actual.toHeapArray()).isEqualTo(expected.toHeapArray());
        assertThat(profiles[0].bytesToHost()).isZero();
        assertThat(profiles[1].bytesToHost()).isEqualTo(4096);
        assertThat(profiles[2].bytesToDevice() - profiles[1].bytesToDevice()).isEqualTo(device.backend().equals("cuda") ? 1024 + 32 : 0);
    }

    @Test
    void javaArraysAreHostArraysWithNoDeviceRegion() {
        FloatArray x = FloatArray.fromArray(new float[] {1, 2, 3, 4});
        FloatArray scales = new FloatArray(1);
        ByteArray codes = new ByteArray(4);
        ImmutableTaskGraph g = new TaskGraph("q").transferToDevice(DataTransferMode.EVERY_EXECUTION, x)
                .task("quant", QuantKernels::quantizeTiles, x, 4, 128, scales, codes).snapshot();
        try (ExecutionPlan plan = new ExecutionPlan(g).withDevice(Devices.java())) {
            assertThat(plan.deviceRegion(x)).isEmpty();
            assertThatThrownBy(() -> plan.writtenOnDevice(x)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessage("device java: its arrays are host arrays; none is written in place on a device");
        }
    }

    /** Not a kernel: an instance method. */
    void notStatic(LongArray a, IntArray b) {
        a.set(0, b.getSize());
    }

    @Test
    void aGraphRefusesWhatNoBackendCanRunOrMoveNamingIt() {
        TaskGraph graph = new TaskGraph("g");
        assertThatThrownBy(() -> graph.task("t", this::notStatic, new LongArray(1), new IntArray(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a task must be a method reference to a static kernel method, not notStatic");
        assertThatThrownBy(() -> graph.transferToDevice(3, new LongArray(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("data transfer mode 3 is not FIRST_EXECUTION (0), EVERY_EXECUTION (1) or UNDER_DEMAND (2)");
        assertThatThrownBy(() -> graph.transferToHost(DataTransferMode.EVERY_EXECUTION, new long[4])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("graph g: only Long/Int/Float/ByteArray and LongPages move between host and device, not long[]");
        assertThatThrownBy(() -> ArrayBytes.of("text")).isInstanceOf(IllegalArgumentException.class).hasMessage("not a task-graph array: String");
    }
}

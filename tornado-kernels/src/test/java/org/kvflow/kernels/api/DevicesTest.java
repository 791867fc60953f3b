package org.kvflow.kernels.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.gather.GatherKernels;

/** Device selection is explicit: named devices or a typed error listing what exists; auto prefers OpenCL. */
class DevicesTest {
    @Test
    void javaIsAlwaysThere() {
        assertThat(Devices.java().kind()).isEqualTo(Device.Kind.JVM);
        assertThat(Devices.java().selector()).isEqualTo("java");
    }

    @Test
    void anAbsentDeviceIsAnErrorNamingWhatWasFound() {
        assertThatThrownBy(() -> Devices.select("opencl:99")).isInstanceOfSatisfying(DeviceNotFoundException.class, e -> {
            assertThat(e.selector()).isEqualTo("opencl:99");
            assertThat(e.getMessage()).startsWith("no kernel device 'opencl:99': found [").contains("java (Java reference");
        });
        assertThatThrownBy(() -> Devices.select("cuda")).isInstanceOf(DeviceNotFoundException.class);
    }

    @Tag("opencl")
    @Test
    void autoPrefersOpenClWhenThereIsOne() {
        assumeTrue(Devices.openCl().isPresent(), "no OpenCL device: " + Devices.all());
        Device auto = Devices.select("auto");
        assertThat(auto.backend()).isEqualTo("opencl");
        assertThat(Devices.select(auto.selector())).isEqualTo(auto);
    }

    @Test
    void tasksMustBeStaticKernelMethodsAndGraphsNeedATask() {
        LongArray a = new LongArray(1);
        IntArray ids = new IntArray(0);
        TaskGraph graph = new TaskGraph("g");
        assertThatThrownBy(() -> graph.task("t", (LongArray x, IntArray y, Integer z, LongArray w) -> { }, a, ids, 1, a))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("method reference to a static kernel method");
        assertThatThrownBy(graph::snapshot).isInstanceOf(IllegalStateException.class).hasMessage("graph g has no task");
        assertThatThrownBy(() -> graph.transferToDevice(3, a)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mode 3");
        assertThatThrownBy(() -> graph.transferToDevice(DataTransferMode.FIRST_EXECUTION, new long[1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not long[]");
        LongPages pages = LongPages.of(a, 1);
        graph.task("t", GatherKernels::gatherPages, pages, ids, pages);
        assertThatThrownBy(() -> graph.task("t", GatherKernels::gatherPages, pages, ids, pages)).hasMessage("graph g already has a task t");
        assertThat(graph.snapshot().tasks().getFirst().kernel().toString()).isEqualTo("org.kvflow.kernels.gather.GatherKernels.gatherPages");
    }
}

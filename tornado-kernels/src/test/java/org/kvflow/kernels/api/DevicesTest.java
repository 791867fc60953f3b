package org.kvflow.kernels.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.gather.GatherKernels;

/** Device selection is explicit: named devices or a typed error listing what exists; auto prefers CUDA, then OpenCL GPUs. */
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
        assertThatThrownBy(() -> Devices.select("cuda:99")).isInstanceOf(DeviceNotFoundException.class)
                .hasMessageStartingWith("no kernel device 'cuda:99': found [");
    }

    @Test
    void autoPrefersACudaGpuThenAnOpenClGpuThenAnOpenClCpuThenJava() {
        Device java = Devices.java();
        Device cpu = new Device("opencl", 0, "pthread", Device.Kind.CPU);
        Device clGpu = new Device("opencl", 1, "H200 / NVIDIA OpenCL", Device.Kind.GPU);
        Device cuda0 = new Device("cuda", 0, "H200", Device.Kind.GPU);
        Device cuda1 = new Device("cuda", 1, "H200", Device.Kind.GPU);
        assertThat(Devices.preferred(List.of(java, cpu, clGpu, cuda1, cuda0))).contains(cuda0);
        assertThat(Devices.preferred(List.of(cuda1, clGpu, java))).contains(cuda1);
        assertThat(Devices.preferred(List.of(java, clGpu, cpu))).contains(clGpu);
        assertThat(Devices.preferred(List.of(cpu, java))).contains(cpu);
        assertThat(Devices.preferred(List.of(java))).contains(java);
        Device clGpu0 = new Device("opencl", 0, "H200 / NVIDIA OpenCL", Device.Kind.GPU);
        assertThat(Devices.preferred(List.of(clGpu0, cuda1))).as("the backend decides before the index").contains(cuda1);
        assertThat(Devices.preferred(List.of(cuda1, clGpu0))).contains(cuda1);
        Device cpu1 = new Device("opencl", 1, "pthread", Device.Kind.CPU);
        assertThat(Devices.preferred(List.of(cpu1, cpu))).as("then the lowest index").contains(cpu);
        Counting two = new Counting("cuda", cuda1, cuda0);
        assertThat(Devices.select("cuda", List.of(two))).isEqualTo(cuda0);
        assertThat(Devices.select("cuda:1", List.of(two))).isEqualTo(cuda1);
    }

    @Tag("accelerator")
    @Test
    void autoIsTheBestDeviceHereAndItsSelectorNamesIt() {
        Device auto = Devices.select("auto");
        assertThat(auto).isEqualTo(Devices.preferred(Devices.all()).orElseThrow());
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

    /** A backend of fixed devices that counts how often it was asked for them. */
    private static final class Counting implements KernelBackend {
        final String name;
        final List<Device> devices;
        int probes;

        Counting(String name, Device... devices) {
            this.name = name;
            this.devices = List.of(devices);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public List<Device> devices() {
            probes++;
            return devices;
        }

        @Override
        public Session open(List<ImmutableTaskGraph> graphs, Device device) {
            throw new UnsupportedOperationException("not run");
        }
    }

    @Test
    void aNamedBackendAloneIsAskedForItsDevices() {
        Counting java = new Counting("java", new Device("java", 0, "Java", Device.Kind.JVM));
        Counting openCl = new Counting("opencl", new Device("opencl", 0, "PoCL", Device.Kind.CPU));
        List<KernelBackend> backends = List.of(java, openCl);
        assertThat(Devices.select("java", backends).backend()).isEqualTo("java");
        assertThat(openCl.probes).as("selecting java never starts an OpenCL runtime").isZero();
        assertThat(Devices.select("opencl:0", backends).name()).isEqualTo("PoCL");
        assertThat(java.probes).isEqualTo(1);
        assertThat(Devices.select("auto", backends).backend()).as("auto asks every backend").isEqualTo("opencl");
        assertThat(java.probes).isEqualTo(2);
        assertThatThrownBy(() -> Devices.select("opencl:3", backends)).isInstanceOf(DeviceNotFoundException.class)
                .hasMessageStartingWith("no kernel device 'opencl:3': found [");
    }
}

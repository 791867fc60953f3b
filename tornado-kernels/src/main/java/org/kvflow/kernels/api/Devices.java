package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Finds kernel devices. Selectors: {@code auto} (a CUDA GPU, else an OpenCL GPU, else an OpenCL
 * CPU, else Java), {@code java}, {@code opencl} / {@code cuda} (that backend's best device) and
 * {@code opencl:<n>} / {@code cuda:<n>}. The choice is logged; asking for a device that is not
 * here throws {@link DeviceNotFoundException} listing what was found. Never falls back silently.
 */
public final class Devices {
    private static final System.Logger LOG = System.getLogger(Devices.class.getName());
    /** Among devices of one kind, {@code auto} takes the backend listed first. */
    private static final List<String> PREFERENCE = List.of("cuda", "opencl", "java");
    private static final Comparator<Device> BEST = Comparator.comparing(Device::kind)
            .thenComparingInt((Device d) -> -preference(d.backend())).thenComparingInt(d -> -d.index());
    private static final List<KernelBackend> BACKENDS = ServiceLoader.load(KernelBackend.class, Devices.class.getClassLoader())
            .stream().map(ServiceLoader.Provider::get).toList();

    private Devices() {}

    /** Every device of every backend. */
    public static List<Device> all() {
        List<Device> all = new ArrayList<>();
        BACKENDS.forEach(b -> all.addAll(b.devices()));
        return all;
    }

    /** The best OpenCL device, if any (tests use this to skip with a reason). */
    public static Optional<Device> openCl() {
        return best("opencl");
    }

    /** The best device of {@code backend}, if it has any. */
    public static Optional<Device> best(String backend) {
        return all().stream().filter(d -> d.backend().equals(backend)).max(BEST);
    }

    /** The plain-Java device (always present). */
    public static Device java() {
        return select("java");
    }

    /** The device a selector names; see the class comment. Only the backend it names is asked for devices ({@code auto} asks all). */
    public static Device select(String selector) {
        return select(selector, BACKENDS);
    }

    /** {@link #select(String)} among {@code backends}: a named backend alone is probed, so {@code java} never starts an OpenCL runtime. */
    static Device select(String selector, List<KernelBackend> backends) {
        String named = selector.contains(":") ? selector.substring(0, selector.indexOf(':')) : selector;
        List<Device> candidates = new ArrayList<>();
        for (KernelBackend b : backends) {
            if (selector.equals("auto") || b.name().equals(named)) {
                candidates.addAll(b.devices());
            }
        }
        Optional<Device> chosen = switch (selector) {
            case "auto" -> preferred(candidates);
            case "opencl", "cuda" -> candidates.stream().max(BEST);
            default -> candidates.stream().filter(d -> d.selector().equals(selector)).findFirst();
        };
        Device device = chosen.orElseThrow(() -> new DeviceNotFoundException(selector, found(backends)));
        LOG.log(System.Logger.Level.DEBUG, "kernel device for ''{0}'': {1}", selector, device);
        return device;
    }

    /** The device {@code auto} takes among {@code devices}: GPUs first (CUDA before OpenCL), then OpenCL CPUs, then Java. */
    static Optional<Device> preferred(List<Device> devices) {
        return devices.stream().max(BEST);
    }

    private static int preference(String backend) {
        int i = PREFERENCE.indexOf(backend);
        return i < 0 ? PREFERENCE.size() : i;
    }

    static KernelBackend backend(Device device) {
        return BACKENDS.stream().filter(b -> b.name().equals(device.backend())).findFirst()
                .orElseThrow(() -> new DeviceNotFoundException(device.selector(), found(BACKENDS)));
    }

    /** Every device of {@code backends}, and why a backend has none, for an error naming what exists. */
    private static String found(List<KernelBackend> backends) {
        List<Device> all = new ArrayList<>();
        backends.forEach(b -> all.addAll(b.devices()));
        StringBuilder s = new StringBuilder(all.toString());
        for (KernelBackend b : backends) {
            if (b.devices().isEmpty() && !b.unavailableReason().isEmpty()) {
                s.append("; ").append(b.name()).append(": ").append(b.unavailableReason());
            }
        }
        return s.toString();
    }
}

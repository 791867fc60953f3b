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

    /** The device a selector names; see the class comment. */
    public static Device select(String selector) {
        List<Device> all = all();
        Optional<Device> chosen = switch (selector) {
            case "auto" -> preferred(all);
            case "opencl", "cuda" -> best(selector);
            default -> all.stream().filter(d -> d.selector().equals(selector)).findFirst();
        };
        Device device = chosen.orElseThrow(() -> new DeviceNotFoundException(selector, found(all)));
        LOG.log(System.Logger.Level.INFO, "kernel device for ''{0}'': {1}", selector, device);
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
                .orElseThrow(() -> new DeviceNotFoundException(device.selector(), found(all())));
    }

    private static String found(List<Device> all) {
        StringBuilder s = new StringBuilder(all.toString());
        for (KernelBackend b : BACKENDS) {
            if (b.devices().isEmpty() && !b.unavailableReason().isEmpty()) {
                s.append("; ").append(b.name()).append(": ").append(b.unavailableReason());
            }
        }
        return s.toString();
    }
}

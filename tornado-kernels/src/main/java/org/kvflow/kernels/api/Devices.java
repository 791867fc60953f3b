package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Finds kernel devices. Selectors: {@code auto} (an OpenCL GPU, else an OpenCL CPU, else Java),
 * {@code java}, {@code opencl} (the best OpenCL device) and {@code opencl:<n>}. The choice is
 * logged; asking for a device that is not here throws {@link DeviceNotFoundException} listing
 * what was found. Never falls back silently.
 */
public final class Devices {
    private static final System.Logger LOG = System.getLogger(Devices.class.getName());
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
        return all().stream().filter(d -> d.backend().equals("opencl")).max(Comparator.comparing(Device::kind));
    }

    /** The plain-Java device (always present). */
    public static Device java() {
        return select("java");
    }

    /** The device a selector names; see the class comment. */
    public static Device select(String selector) {
        List<Device> all = all();
        Optional<Device> chosen = switch (selector) {
            case "auto" -> all.stream().max(Comparator.comparing(Device::kind).thenComparing(d -> -d.index()));
            case "opencl" -> openCl();
            default -> all.stream().filter(d -> d.selector().equals(selector)).findFirst();
        };
        Device device = chosen.orElseThrow(() -> new DeviceNotFoundException(selector, found(all)));
        LOG.log(System.Logger.Level.INFO, "kernel device for ''{0}'': {1}", selector, device);
        return device;
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

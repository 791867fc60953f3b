package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.util.List;

/**
 * A backend over a native runtime (OpenCL, CUDA) whose devices are listed once, at first use, not
 * when the backend is loaded: a run on {@code java} never loads the runtime. A runtime that cannot
 * be loaded, or lists no device, leaves the list empty and says why in {@link #unavailableReason()}.
 */
public abstract class NativeBackend implements KernelBackend {
    private final List<Device> devices = new ArrayList<>();
    private String unavailable = "";
    private boolean listed;

    /**
     * Lists the runtime's devices into {@code into}, in index order.
     *
     * @return why there is none, used only where none was listed
     */
    protected abstract String listDevices(List<Device> into);

    /** Why the runtime is unavailable, from what listing threw (a missing native library surfaces as an {@link UnsatisfiedLinkError}). */
    protected abstract String notLoaded(Throwable thrown);

    /** Lists the devices unless that was done. */
    protected final synchronized void probe() {
        if (listed) {
            return;
        }
        listed = true;
        try {
            String none = listDevices(devices);
            if (devices.isEmpty()) {
                unavailable = none;
            }
        } catch (Throwable e) { // linking errors as well as the runtime's exceptions
            unavailable = notLoaded(e);
        }
    }

    @Override
    public final synchronized List<Device> devices() {
        probe();
        return List.copyOf(devices);
    }

    @Override
    public final synchronized String unavailableReason() {
        probe();
        return unavailable;
    }
}

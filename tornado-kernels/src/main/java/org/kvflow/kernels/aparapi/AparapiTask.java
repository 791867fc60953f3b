package org.kvflow.kernels.aparapi;

import com.aparapi.Kernel;
import com.aparapi.Range;
import com.aparapi.device.OpenCLDevice;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.quant.Fp8Table;

/** An Aparapi twin of one {@code *Kernels} method: binds the task's arguments to fields and says its launch range. */
abstract class AparapiTask extends Kernel {
    /** Local size on every device: the H200 refuses more than 256 for these kernels. */
    static final int LOCAL = 256;

    /** The fp32 values of fp8 e4m3 codes {@code 0 .. n-1}, from the Java codec (a device-side decode table). */
    static float[] fp8Table(int n) {
        return Fp8Table.first(n);
    }

    /** Points the kernel's fields at the task's arguments (the wrapped heap arrays, the scalars). */
    abstract void bind(List<Object> args);

    /** The arguments the kernel writes (the rest it only reads): most kernels write their last. */
    List<Object> outputs(List<Object> args) {
        return List.of(args.getLast());
    }

    /** Work-items to launch; zero means there is nothing to do and no launch happens. */
    abstract int globalSize();

    /** Passes of one launch ({@code getPassId()} 0, 1, …), each over the whole range after the last finished. */
    int passes() {
        return 1;
    }

    /** Copies arrays the twin holds itself (tables), once, before its first launch. */
    void putOwn() {
        // most twins hold none
    }

    /** The last range handed out, kept while the global size stays the same. */
    private @Nullable Range range;

    /** {@link #globalSize()} rounded up to whole work-groups (kernels guard the excess). */
    final int launchSize() {
        return (globalSize() + LOCAL - 1) / LOCAL * LOCAL;
    }

    /** The launch range over {@link #launchSize()} work-items. */
    final Range range(OpenCLDevice device) {
        int global = launchSize();
        if (range == null || range.getGlobalSize(0) != global || range.getDevice() != device) {
            range = device.createRange(global, LOCAL);
        }
        return range;
    }

    final void move(long[] a, boolean toDevice) {
        if (toDevice) {
            put(a);
        } else {
            get(a);
        }
    }

    final void move(int[] a, boolean toDevice) {
        if (toDevice) {
            put(a);
        } else {
            get(a);
        }
    }

    final void move(float[] a, boolean toDevice) {
        if (toDevice) {
            put(a);
        } else {
            get(a);
        }
    }

    final void move(byte[] a, boolean toDevice) {
        if (toDevice) {
            put(a);
        } else {
            get(a);
        }
    }
}

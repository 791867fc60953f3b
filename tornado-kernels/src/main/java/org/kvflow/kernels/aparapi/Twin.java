package org.kvflow.kernels.aparapi;

import com.aparapi.Kernel;
import java.util.List;

/**
 * One instance of a twin, seen from another backend: the Aparapi kernel whose OpenCL C that
 * backend compiles and whose fields hold the launch arguments once {@link #bind bound}, and the
 * twin's launch shape (work-items, work-group size, passes).
 */
public final class Twin {
    private final AparapiTask task;

    Twin(AparapiTask task) {
        this.task = task;
    }

    /** The Aparapi kernel: its class is translated, its fields are the kernel's arguments. */
    public Kernel kernel() {
        return task;
    }

    /** Points the kernel's fields at the task's arguments (the wrapped heap arrays, the scalars). */
    public void bind(List<Object> args) {
        task.bind(args);
    }

    /** The task arguments the kernel writes. */
    public List<Object> outputs(List<Object> args) {
        return task.outputs(args);
    }

    /** Work-items of one pass, rounded up to whole work-groups; zero means nothing to launch. */
    public int globalSize() {
        int g = task.globalSize();
        return (g + AparapiTask.LOCAL - 1) / AparapiTask.LOCAL * AparapiTask.LOCAL;
    }

    /** Work-items per work-group. */
    public int localSize() {
        return AparapiTask.LOCAL;
    }

    /** Passes of one launch, each over the whole range after the last finished. */
    public int passes() {
        return task.passes();
    }
}

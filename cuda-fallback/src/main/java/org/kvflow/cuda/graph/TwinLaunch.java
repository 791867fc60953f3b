package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import org.kvflow.kernels.aparapi.Twin;

/**
 * A task run by its twin's translated kernel ({@link CudaTwinSource}): the twin is bound to the
 * task's arguments as on OpenCL, and each entry-point parameter is filled from the twin's field
 * of that name: an array by the device address of its buffer, a {@code __local} array by its
 * offset in the launch's shared memory, a scalar by its value at launch time. The range is the
 * twin's (a block per work-group, one launch per pass).
 */
final class TwinLaunch implements Launch {
    private final String task;
    private final Twin twin;
    private final CUfunction function;
    /** Per parameter, its value for a given pass. */
    private final List<IntFunction<Pointer>> values = new ArrayList<>();
    private final List<DeviceArray> reads = new ArrayList<>();
    private final List<DeviceArray> writes;
    private final int sharedBytes;
    /** The scalar parameters' fields: with the grid and passes, what a replayed graph was captured for. */
    private final List<Field> scalars = new ArrayList<>();
    private final LaunchReplay replay = new LaunchReplay();

    TwinLaunch(String task, Twin twin, CudaTwinSource source, CUfunction function, List<Object> args, DeviceArrays buffers) {
        this.task = task;
        this.twin = twin;
        this.function = function;
        Set<DeviceArray> read = Collections.newSetFromMap(new IdentityHashMap<>());
        int shared = 0;
        for (KernelParam p : source.params()) {
            switch (p.kind()) {
                case GLOBAL_ARRAY -> {
                    Object heapArray = fieldValue(p.field());
                    DeviceArrays.Slot slot = buffers.slot(heapArray);
                    if (slot == null) {
                        slot = new DeviceArrays.Slot(buffers.own(heapArray, task + " " + p.name()), 0);
                    }
                    read.add(slot.array());
                    Pointer at = Pointer.to(slot.array().address().withByteOffset(slot.offset()));
                    values.add(pass -> at);
                }
                case SHARED_ARRAY -> {
                    int offset = shared;
                    Pointer at = Pointer.to(new int[] {offset});
                    values.add(pass -> at);
                    long bytes = DeviceArray.bytesOf(fieldValue(p.field()));
                    shared = Math.toIntExact((offset + bytes + 31) / 32 * 32); // 32-byte aligned, as tensor-core fragments load
                }
                case ARRAY_LENGTH -> {
                    Pointer length = Pointer.to(new int[] {Array.getLength(fieldValue(p.field()))});
                    values.add(pass -> length);
                }
                case PASS_ID -> values.add(pass -> Pointer.to(new int[] {pass}));
                case SCALAR -> {
                    Field f = field(p.field());
                    scalars.add(f);
                    values.add(pass -> scalar(f));
                }
            }
        }
        this.reads.addAll(read);
        this.writes = twin.outputs(args).stream().map(buffers::get).toList();
        this.sharedBytes = shared;
        CudaContext.allowShared(function, shared);
    }

    @Override
    public String task() {
        return task;
    }

    @Override
    public List<DeviceArray> reads() {
        return reads;
    }

    @Override
    public List<DeviceArray> writes() {
        return writes;
    }

    /** The passes go through {@link LaunchReplay}: replayed as one captured graph while grid, passes and scalars repeat. */
    @Override
    public void enqueue(CUstream stream) {
        int global = twin.globalSize();
        if (global == 0) {
            return;
        }
        int local = twin.localSize();
        int passes = twin.passes();
        List<Object> key = new ArrayList<>(List.of(global, local, passes));
        for (Field f : scalars) {
            key.add(read(f));
        }
        replay.launch(stream, key, captured -> launch(captured, global, local, passes));
    }

    private void launch(CUstream stream, int global, int local, int passes) {
        for (int pass = 0; pass < passes; pass++) {
            Pointer[] params = new Pointer[values.size()];
            for (int i = 0; i < params.length; i++) {
                params[i] = values.get(i).apply(pass);
            }
            cuLaunchKernel(function, global / local, 1, 1, local, 1, 1, sharedBytes, stream, Pointer.to(params), null);
        }
    }

    @Override
    public void close() {
        replay.close();
    }

    private Object fieldValue(String name) {
        return read(field(name));
    }

    private Field field(String name) {
        for (Class<?> c = twin.kernel().getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new IllegalArgumentException("the twin " + twin.kernel().getClass().getName() + " has no field " + name);
    }

    private Object read(Field f) {
        try {
            return f.get(twin.kernel());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("twin field " + f.getName(), e);
        }
    }

    private Pointer scalar(Field f) {
        return switch (read(f)) {
            case Integer v -> Pointer.to(new int[] {v});
            case Float v -> Pointer.to(new float[] {v});
            case Long v -> Pointer.to(new long[] {v});
            case Double v -> Pointer.to(new double[] {v});
            case Short v -> Pointer.to(new short[] {v});
            case Byte v -> Pointer.to(new byte[] {v});
            case Boolean v -> Pointer.to(new byte[] {(byte) (v ? 1 : 0)});
            case Object v -> throw new IllegalArgumentException("field " + f.getName() + " holds a " + v.getClass().getSimpleName()
                    + ", not a scalar a kernel takes");
        };
    }
}

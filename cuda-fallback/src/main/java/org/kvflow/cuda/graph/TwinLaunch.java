package org.kvflow.cuda.graph;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import org.kvflow.cuda.DriverLaunch;
import org.kvflow.kernels.aparapi.Twin;

/**
 * A task run by its twin's translated kernel ({@link CudaTwinSource}): the twin is bound to the
 * task's arguments as on OpenCL, and each entry-point parameter is filled from the twin's field
 * of that name: an array by the device address of its buffer, a {@code __local} array by its
 * offset in the launch's shared memory, a scalar by its value at launch time. The range is the
 * twin's (a block per work-group, one launch per pass). Launches go through {@link DriverLaunch}:
 * the arguments stay in one native block made at the first launch, and a launch rewrites only
 * the pass id and the scalars.
 */
final class TwinLaunch implements Launch {
    private final String task;
    private final Twin twin;
    private final CUfunction function;
    private final List<KernelParam> params;
    /** Per parameter, the value that does not change between launches (an address, an offset, a length); unused for the rest. */
    private final long[] fixed;
    /** Per parameter, the scalar field it reads at each launch, or null. */
    private final Field[] scalars;
    /** The argument block, made at the first launch, on the stream of that launch. */
    private DriverLaunch driver;
    private CUstream driverStream;
    private final List<DeviceArray> reads = new ArrayList<>();
    private final List<DeviceArray> writes;
    private final int sharedBytes;

    TwinLaunch(String task, Twin twin, CudaTwinSource source, CUfunction function, List<Object> args, DeviceArrays buffers) {
        this.task = task;
        this.twin = twin;
        this.function = function;
        Set<DeviceArray> read = Collections.newSetFromMap(new IdentityHashMap<>());
        this.params = source.params();
        this.fixed = new long[params.size()];
        this.scalars = new Field[params.size()];
        int shared = 0;
        for (int i = 0; i < params.size(); i++) {
            KernelParam p = params.get(i);
            switch (p.kind()) {
                case GLOBAL_ARRAY -> {
                    Object heapArray = fieldValue(p.field());
                    DeviceArrays.Slot slot = buffers.slot(heapArray);
                    if (slot == null) {
                        slot = new DeviceArrays.Slot(buffers.own(heapArray, task + " " + p.name()), 0);
                    }
                    read.add(slot.array());
                    fixed[i] = slot.array().address().address() + slot.offset();
                }
                case SHARED_ARRAY -> {
                    fixed[i] = shared;
                    long bytes = DeviceArray.bytesOf(fieldValue(p.field()));
                    shared = Math.toIntExact((shared + bytes + 31) / 32 * 32); // 32-byte aligned, as tensor-core fragments load
                }
                case ARRAY_LENGTH -> fixed[i] = Array.getLength(fieldValue(p.field()));
                case PASS_ID -> fixed[i] = 0;
                case SCALAR -> scalars[i] = field(p.field());
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

    @Override
    public void enqueue(CUstream stream) {
        int global = twin.globalSize();
        if (global == 0) {
            return;
        }
        int local = twin.localSize();
        DriverLaunch launch = driver(stream);
        for (int i = 0; i < scalars.length; i++) {
            if (scalars[i] != null) {
                setScalar(launch, i, scalars[i]);
            }
        }
        for (int pass = 0; pass < twin.passes(); pass++) {
            for (int i = 0; i < params.size(); i++) {
                if (params.get(i).kind() == KernelParam.Kind.PASS_ID) {
                    launch.setInt(i, pass);
                }
            }
            launch.launch(global / local, 1, local, sharedBytes);
        }
    }

    /** Frees the argument block. */
    @Override
    public void close() {
        if (driver != null) {
            driver.close();
            driver = null;
        }
    }

    /** The argument block for launches on {@code stream}, its fixed values set once. */
    private DriverLaunch driver(CUstream stream) {
        if (driver == null || driverStream != stream) {
            close();
            DriverLaunch d = new DriverLaunch(task, function, stream, params.size());
            for (int i = 0; i < fixed.length; i++) {
                switch (params.get(i).kind()) {
                    case GLOBAL_ARRAY -> d.set(i, fixed[i]);
                    case SHARED_ARRAY, ARRAY_LENGTH -> d.setInt(i, (int) fixed[i]);
                    case PASS_ID, SCALAR -> {
                        // set at each launch
                    }
                }
            }
            driver = d;
            driverStream = stream;
        }
        return driver;
    }

    private Object fieldValue(String name) {
        try {
            return field(name).get(twin.kernel());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("twin field " + name, e);
        }
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

    /** Argument {@code i} from the scalar field {@code f} as it is now: 4 bytes for an int or narrower, a float's bits; 8 for a long or a double. */
    private void setScalar(DriverLaunch launch, int i, Field f) {
        try {
            switch (f.get(twin.kernel())) {
                case Integer v -> launch.setInt(i, v);
                case Float v -> launch.setInt(i, Float.floatToRawIntBits(v));
                case Long v -> launch.set(i, v);
                case Double v -> launch.set(i, Double.doubleToRawLongBits(v));
                case Short v -> launch.setInt(i, v & 0xFFFF);
                case Byte v -> launch.setInt(i, v & 0xFF);
                case Boolean v -> launch.setInt(i, v ? 1 : 0);
                case Object v -> throw new IllegalArgumentException("field " + f.getName() + " holds a " + v.getClass().getSimpleName()
                        + ", not a scalar a kernel takes");
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("twin field " + f.getName(), e);
        }
    }
}

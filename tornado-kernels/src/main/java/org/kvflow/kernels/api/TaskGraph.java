package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.io.Serializable;
import java.util.List;
import java.util.function.Consumer;
import java.util.Objects;

/**
 * A mutable fluent builder of tasks and data transfers (TornadoVM's {@code TaskGraph}); every
 * method returns {@code this}. {@link #snapshot()} freezes it for an {@link ExecutionPlan}.
 * Not thread-safe.
 */
public final class TaskGraph {
    private final String name;
    private final List<ImmutableTaskGraph.Transfer> toDevice = new ArrayList<>();
    private final List<ImmutableTaskGraph.Task> tasks = new ArrayList<>();
    private final List<ImmutableTaskGraph.Transfer> toHost = new ArrayList<>();
    private final List<Object> persisted = new ArrayList<>();
    private final List<Object> consumed = new ArrayList<>();

    public TaskGraph(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** Arrays the tasks read, copied to the device as {@code mode} says ({@link DataTransferMode}). */
    public TaskGraph transferToDevice(int mode, Object... data) {
        for (Object d : data) {
            toDevice.add(new ImmutableTaskGraph.Transfer(DataTransferMode.check(mode), array(d)));
        }
        return this;
    }

    /** Adds a two-parameter task; see {@link #task(String, Task3, Object, Object, Object)}. */
    public <A, B> TaskGraph task(String id, Task2<A, B> code, A a, B b) {
        return add(id, code, args -> code.apply(cast(args[0]), cast(args[1])), a, b);
    }

    /**
     * Adds task {@code id} (grid key {@code "<graph>.<id>"}) running {@code code} over the arguments.
     * A kernel's javadoc says which arguments it writes (most write their last); it only reads the rest.
     */
    public <A, B, C> TaskGraph task(String id, Task3<A, B, C> code, A a, B b, C c) {
        return add(id, code, args -> code.apply(cast(args[0]), cast(args[1]), cast(args[2])), a, b, c);
    }

    /** Adds a four-parameter task; see {@link #task(String, Task3, Object, Object, Object)}. */
    public <A, B, C, D> TaskGraph task(String id, Task4<A, B, C, D> code, A a, B b, C c, D d) {
        return add(id, code, args -> code.apply(cast(args[0]), cast(args[1]), cast(args[2]), cast(args[3])), a, b, c, d);
    }

    /** Adds a five-parameter task; see {@link #task(String, Task3, Object, Object, Object)}. */
    public <A, B, C, D, E> TaskGraph task(String id, Task5<A, B, C, D, E> code, A a, B b, C c, D d, E e) {
        return add(id, code, args -> code.apply(cast(args[0]), cast(args[1]), cast(args[2]), cast(args[3]), cast(args[4])), a, b, c, d, e);
    }

    /** Adds a six-parameter task; see {@link #task(String, Task3, Object, Object, Object)}. */
    public <A, B, C, D, E, F> TaskGraph task(String id, Task6<A, B, C, D, E, F> code, A a, B b, C c, D d, E e, F f) {
        return add(id, code, args -> code.apply(cast(args[0]), cast(args[1]), cast(args[2]), cast(args[3]), cast(args[4]), cast(args[5])),
                a, b, c, d, e, f);
    }

    private TaskGraph add(String id, Serializable code, Consumer<Object[]> body, Object... args) {
        if (tasks.stream().anyMatch(t -> t.id().equals(id))) {
            throw new IllegalArgumentException("graph " + name + " already has a task " + id);
        }
        tasks.add(new ImmutableTaskGraph.Task(id, KernelRef.of(code), body, List.of(args)));
        return this;
    }

    /** Arrays the tasks write, copied back to the host as {@code mode} says. */
    public TaskGraph transferToHost(int mode, Object... data) {
        for (Object d : data) {
            toHost.add(new ImmutableTaskGraph.Transfer(DataTransferMode.check(mode), array(d)));
        }
        return this;
    }

    /**
     * Arrays that stay on the device when the plan running this graph closes, for a later plan
     * whose graph {@link #consumeFromDevice consumes} them (TornadoVM's {@code persistOnDevice}).
     * Where the backend cannot keep a buffer past its plan (OpenCL through Aparapi), the array is
     * copied to the host at close instead, so the consumer still sees its newest value.
     */
    public TaskGraph persistOnDevice(Object... data) {
        for (Object d : data) {
            persisted.add(array(d));
        }
        return this;
    }

    /**
     * Arrays an earlier plan left on the device with {@link #persistOnDevice}: this graph takes
     * them over without copying them from the host (TornadoVM's {@code consumeFromDevice}). A
     * plan whose graph consumes an array that no plan persisted is refused when it is built.
     */
    public TaskGraph consumeFromDevice(Object... data) {
        for (Object d : data) {
            consumed.add(array(d));
        }
        return this;
    }

    /** A frozen copy: later edits to this builder do not change it. */
    public ImmutableTaskGraph snapshot() {
        if (tasks.isEmpty()) {
            throw new IllegalStateException("graph " + name + " has no task");
        }
        return new ImmutableTaskGraph(name, List.copyOf(toDevice), List.copyOf(tasks), List.copyOf(toHost), List.copyOf(persisted),
                List.copyOf(consumed));
    }

    private Object array(Object d) {
        if (d instanceof LongArray || d instanceof IntArray || d instanceof FloatArray || d instanceof ByteArray || d instanceof LongPages) {
            return d;
        }
        throw new IllegalArgumentException("graph " + name + ": only Long/Int/Float/ByteArray and LongPages move between host and device, not "
                + (d == null ? "null" : d.getClass().getSimpleName()));
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }
}

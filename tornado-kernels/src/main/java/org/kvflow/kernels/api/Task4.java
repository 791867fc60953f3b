package org.kvflow.kernels.api;

import java.io.Serializable;

/**
 * A kernel of four parameters, given as a method reference to a {@code public static void}
 * method of a {@code *Kernels} class. Serializable so a backend can tell which method it is
 * ({@link KernelRef}) and run its own compiled twin of it.
 */
@FunctionalInterface
public interface Task4<A, B, C, D> extends Serializable {
    void apply(A a, B b, C c, D d);
}

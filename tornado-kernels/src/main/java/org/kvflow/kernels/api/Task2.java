package org.kvflow.kernels.api;

import java.io.Serializable;

/** A kernel of two parameters, as a method reference to a static {@code *Kernels} method (see {@link Task4}). */
@FunctionalInterface
public interface Task2<A, B> extends Serializable {
    void apply(A a, B b);
}

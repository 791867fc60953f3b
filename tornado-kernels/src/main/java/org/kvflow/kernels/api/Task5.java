package org.kvflow.kernels.api;

import java.io.Serializable;

/** A kernel of five parameters, as a method reference to a static {@code *Kernels} method (see {@link Task4}). */
@FunctionalInterface
public interface Task5<A, B, C, D, E> extends Serializable {
    void apply(A a, B b, C c, D d, E e);
}

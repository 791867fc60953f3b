package org.kvflow.kernels.api;

import java.io.Serializable;

/** A kernel of six parameters, as a method reference to a static {@code *Kernels} method (see {@link Task4}). */
@FunctionalInterface
public interface Task6<A, B, C, D, E, F> extends Serializable {
    void apply(A a, B b, C c, D d, E e, F f);
}

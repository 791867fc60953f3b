package org.kvflow.kernels.api;

import java.io.Serializable;

/** A kernel of three parameters, as a method reference to a static {@code *Kernels} method (see {@link Task4}). */
@FunctionalInterface
public interface Task3<A, B, C> extends Serializable {
    void apply(A a, B b, C c);
}

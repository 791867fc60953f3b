package org.kvflow.kernels.api;

import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;

/**
 * The static method a task's method reference names, e.g.
 * {@code org.kvflow.kernels.gather.GatherKernels.gatherPages}: the key under which a backend
 * finds its compiled twin of the kernel.
 */
public record KernelRef(String className, String methodName) {
    /** Reads the method behind a serializable method reference. */
    static KernelRef of(Serializable code) {
        try {
            Method replace = code.getClass().getDeclaredMethod("writeReplace");
            replace.setAccessible(true);
            SerializedLambda lambda = (SerializedLambda) replace.invoke(code);
            if (lambda.getImplMethodKind() != java.lang.invoke.MethodHandleInfo.REF_invokeStatic || lambda.getImplMethodName().startsWith("lambda$")) {
                throw new IllegalArgumentException("a task must be a method reference to a static kernel method, not " + lambda.getImplMethodName());
            }
            return new KernelRef(lambda.getImplClass().replace('/', '.'), lambda.getImplMethodName());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot tell which kernel method " + code + " is", e);
        }
    }

    @Override
    public String toString() {
        return className + "." + methodName;
    }
}

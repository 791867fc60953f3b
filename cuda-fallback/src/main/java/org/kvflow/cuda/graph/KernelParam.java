package org.kvflow.cuda.graph;

/**
 * One parameter of a translated twin's entry point, in order: an array in global memory, an
 * array in shared memory (passed as its byte offset into the launch's dynamic shared memory),
 * a scalar, or Aparapi's pass id. {@code name} is the twin's field (for an array length, the
 * array's field with Aparapi's {@code __javaArrayLength} suffix); {@code type} the C element or
 * scalar type.
 */
record KernelParam(Kind kind, String type, String name) {
    /** How the launcher fills the parameter. */
    enum Kind { GLOBAL_ARRAY, SHARED_ARRAY, SCALAR, ARRAY_LENGTH, PASS_ID }

    static final String LENGTH_SUFFIX = "__javaArrayLength";

    /** The twin field the value comes from. */
    String field() {
        return kind == Kind.ARRAY_LENGTH ? name.substring(0, name.length() - LENGTH_SUFFIX.length()) : name;
    }
}

package org.kvflow.model.safetensors;

import java.util.Arrays;

/**
 * One tensor's entry in a safetensors header: its dtype (as the format spells it: {@code F32},
 * {@code BF16}, {@code F16}, {@code F8_E4M3}, …), its shape, and where its bytes lie in the payload.
 *
 * @param name  the tensor's name
 * @param dtype the element type
 * @param shape the dimensions
 * @param begin the first byte, from the payload's start
 * @param end   one past the last byte
 */
public record TensorInfo(String name, String dtype, long[] shape, long begin, long end) {
    /** {@return how many elements the shape holds} */
    public long elements() {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    /** {@return the shape as {@code [a, b]}} */
    public String shapeText() {
        return Arrays.toString(shape);
    }
}

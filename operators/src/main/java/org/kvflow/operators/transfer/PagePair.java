package org.kvflow.operators.transfer;

/**
 * One page a prefill rank sends (contract §8.2): the page at logical page position {@code pos} of the
 * request, read from the sender's physical page {@code srcLocal}, written to decode page {@code dst}.
 *
 * @param pos      the logical page position
 * @param srcLocal the sender's physical page
 * @param dst      the decode page
 */
public record PagePair(int pos, long srcLocal, long dst) {}

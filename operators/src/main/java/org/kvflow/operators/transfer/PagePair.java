package org.kvflow.operators.transfer;

/**
 * One page a prefill rank sends (SPEC §8.2): the page at logical page position {@code pos} of the
 * request, read from the sender's physical page {@code srcLocal}, written to decode page {@code dst}.
 */
public record PagePair(int pos, long srcLocal, long dst) {}

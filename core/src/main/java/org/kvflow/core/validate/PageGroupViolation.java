package org.kvflow.core.validate;

/** The rules of contract §9, in the order they are checked. */
public enum PageGroupViolation {
    /** Rule 0: {@code ps ≥ 1}; {@code value} is the page size. */
    BAD_PAGE_SIZE,
    /** Rule 1: the length is a multiple of {@code ps}; {@code value} is the length. */
    PARTIAL,
    /** Rule 2: a group's first entry is negative; {@code value} is that entry. */
    NEGATIVE,
    /** Rule 3: a group's first entry is not a multiple of {@code ps}; {@code value} is that entry. */
    MISALIGNED,
    /** Rule 4: entry {@code k} of a group is not {@code first + k}; {@code value} is entry {@code k}. */
    NON_CONTIGUOUS
}

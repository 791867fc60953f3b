package org.kvflow.core.validate;

import org.kvflow.core.KvflowException;

/**
 * Token indices that are not whole, aligned, contiguous pages (contract §9). {@code group} and
 * {@code offset} are −1 for {@link PageGroupViolation#BAD_PAGE_SIZE} and {@link
 * PageGroupViolation#PARTIAL}.
 */
public final class PageGroupValidationException extends KvflowException {
    private final PageGroupViolation kind;
    private final int group;
    private final int offset;
    private final long value;
    private final String context;

    public PageGroupValidationException(PageGroupViolation kind, int group, int offset, long value, long pageSize, String context) {
        super(context + ": " + kind + describe(kind, group, offset, value, pageSize));
        this.kind = kind;
        this.group = group;
        this.offset = offset;
        this.value = value;
        this.context = context;
    }

    private static String describe(PageGroupViolation kind, int group, int offset, long value, long pageSize) {
        String at = " group " + group + " offset " + offset + ": ";
        return switch (kind) {
            case BAD_PAGE_SIZE -> ": page size " + value + " must be >= 1";
            case PARTIAL -> ": " + value + " indices are not a multiple of page size " + pageSize;
            case NEGATIVE -> at + value + " is negative";
            case MISALIGNED -> at + value + " is not a multiple of page size " + pageSize;
            case NON_CONTIGUOUS -> at + value + " breaks the run (expected first + " + offset + ")";
        };
    }

    public PageGroupViolation kind() {
        return kind;
    }

    public int group() {
        return group;
    }

    public int offset() {
        return offset;
    }

    public long value() {
        return value;
    }

    /** Who called the validation (e.g. {@code "hicache load req 17"}). */
    public String context() {
        return context;
    }

    /** The violated rule's contract §9 kind ({@code MISALIGNED}, …). */
    @Override
    public String code() {
        return kind().name();
    }
}

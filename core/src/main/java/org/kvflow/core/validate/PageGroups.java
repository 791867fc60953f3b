package org.kvflow.core.validate;

import static org.kvflow.core.validate.PageGroupViolation.BAD_PAGE_SIZE;
import static org.kvflow.core.validate.PageGroupViolation.MISALIGNED;
import static org.kvflow.core.validate.PageGroupViolation.NEGATIVE;
import static org.kvflow.core.validate.PageGroupViolation.NON_CONTIGUOUS;
import static org.kvflow.core.validate.PageGroupViolation.PARTIAL;

import java.util.Objects;

/**
 * {@code validatePageAlignedTokenIndices} of contract §9: token indices must come as whole pages,
 * each group of {@code ps} entries starting at a non-negative multiple of {@code ps} and counting
 * up by one. Groups may be scattered and in any order; duplicates across groups are allowed.
 */
public final class PageGroups {
    private PageGroups() {}

    /**
     * Checks rules 0–4 in contract order and reports the first violation.
     *
     * @param idx     token indices (empty is valid: 0 pages)
     * @param ps      page size (any value; below 1 is {@code BAD_PAGE_SIZE})
     * @param context who is asking, for the error message
     * @return the number of pages
     * @throws PageGroupValidationException naming the rule, group, offset and offending value
     */
    public static int validatePageAlignedTokenIndices(long[] idx, long ps, String context) {
        Objects.requireNonNull(idx, "idx");
        Objects.requireNonNull(context, "context");
        if (ps < 1) {
            throw new PageGroupValidationException(BAD_PAGE_SIZE, -1, -1, ps, ps, context);
        }
        if (idx.length % ps != 0) {
            throw new PageGroupValidationException(PARTIAL, -1, -1, idx.length, ps, context);
        }
        if (idx.length == 0) {
            return 0;
        }
        int width = (int) ps; // idx.length is a positive multiple of ps, so ps fits an int
        int groups = idx.length / width;
        for (int g = 0; g < groups; g++) {
            int base = g * width;
            long first = idx[base];
            if (first < 0) {
                throw new PageGroupValidationException(NEGATIVE, g, 0, first, ps, context);
            }
            if (first % ps != 0) {
                throw new PageGroupValidationException(MISALIGNED, g, 0, first, ps, context);
            }
            for (int k = 1; k < width; k++) {
                if (idx[base + k] != first + k) {
                    throw new PageGroupValidationException(NON_CONTIGUOUS, g, k, idx[base + k], ps, context);
                }
            }
        }
        return groups;
    }
}

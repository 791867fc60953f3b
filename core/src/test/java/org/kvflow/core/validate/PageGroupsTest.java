package org.kvflow.core.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** contract §9 examples and §15 items 33–35. */
class PageGroupsTest {
    @Test
    void scatteredAlignedGroupsAreValid() {
        assertThat(PageGroups.validatePageAlignedTokenIndices(new long[] {8, 9, 10, 11, 0, 1, 2, 3}, 4, "t")).isEqualTo(2);
    }

    @Test
    void emptyIsZeroPages() {
        assertThat(PageGroups.validatePageAlignedTokenIndices(new long[0], 4, "t")).isZero();
    }

    @Test
    void duplicateGroupsAreAllowed() {
        assertThat(PageGroups.validatePageAlignedTokenIndices(new long[] {4, 5, 4, 5}, 2, "t")).isEqualTo(2);
    }

    @Test
    void eachRuleReportsItsFields() {
        expect(() -> validate(0, 1, 2), PageGroupViolation.BAD_PAGE_SIZE, -1, -1, 0);
        expect(() -> validate(4, 8, 9, 10), PageGroupViolation.PARTIAL, -1, -1, 3);
        expect(() -> validate(4, 9, 10, 11, 12), PageGroupViolation.MISALIGNED, 0, 0, 9);
        expect(() -> validate(4, 8, 9, 11, 10), PageGroupViolation.NON_CONTIGUOUS, 0, 2, 11);
        expect(() -> validate(4, 0, 1, 2, 3, 6, 7, 8, 9), PageGroupViolation.MISALIGNED, 1, 0, 6);
        expect(() -> validate(4, 4, 5, 6, 7, 12, 13, 14, 16), PageGroupViolation.NON_CONTIGUOUS, 1, 3, 16);
        expect(() -> validate(2, 2, 3, -4, -3), PageGroupViolation.NEGATIVE, 1, 0, -4);
    }

    @Test
    void negativeIsCheckedBeforeAlignmentWithinAGroup() {
        expect(() -> validate(4, -3, -2, -1, 0), PageGroupViolation.NEGATIVE, 0, 0, -3);
    }

    @Test
    void partialIsCheckedBeforeAnyGroup() {
        expect(() -> validate(4, -1, 0, 1, 2, 3), PageGroupViolation.PARTIAL, -1, -1, 5);
    }

    @Test
    void messageNamesContextGroupAndValue() {
        assertThatThrownBy(() -> PageGroups.validatePageAlignedTokenIndices(new long[] {130, 131}, 64, "hicache load req 17"))
                .hasMessage("hicache load req 17: PARTIAL: 2 indices are not a multiple of page size 64");
        assertThatThrownBy(() -> validate(2, 0, 1, 3, 4))
                .hasMessage("t: MISALIGNED group 1 offset 0: 3 is not a multiple of page size 2");
    }

    @Test
    void hugePageSizeIsPartialUnlessEmpty() {
        assertThat(PageGroups.validatePageAlignedTokenIndices(new long[0], 1L << 40, "t")).isZero();
        expect(() -> PageGroups.validatePageAlignedTokenIndices(new long[] {0}, 1L << 40, "t"), PageGroupViolation.PARTIAL, -1, -1, 1);
    }

    private static int validate(long ps, long... idx) {
        return PageGroups.validatePageAlignedTokenIndices(idx, ps, "t");
    }

    private static void expect(ThrowingCallable call, PageGroupViolation kind, int group, int offset, long value) {
        assertThatThrownBy(call).isInstanceOfSatisfying(PageGroupValidationException.class, e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.group()).isEqualTo(group);
            assertThat(e.offset()).isEqualTo(offset);
            assertThat(e.value()).isEqualTo(value);
        });
    }
}

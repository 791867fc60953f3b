package org.kvflow.kernels.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.kernels.gather.PageOutOfRangeException;

class HeapPageCopierTest {
    private final HeapPageCopier copier = new HeapPageCopier();

    private PageBuffer filled(String label, int pages, int pageBytes) {
        PageBuffer b = copier.allocate(label, pages, pageBytes);
        byte[] content = new byte[pages * pageBytes];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i / pageBytes + 1);
        }
        copier.write(b, 0, content, 0, pages);
        return b;
    }

    private byte[] all(PageBuffer b) {
        byte[] out = new byte[(int) b.bytes()];
        copier.read(b, 0, (int) b.pages(), out, 0);
        return out;
    }

    @Test
    void gatherThenScatterRestoresPages() {
        PageBuffer pool = filled("pool", 6, 2);
        PageBuffer view = copier.allocate("view", 3, 2);
        PageCopies.gather(copier, pool, new long[] {5, 1, 3}, view);
        assertThat(all(view)).containsExactly(6, 6, 2, 2, 4, 4);
        PageBuffer other = copier.allocate("other", 6, 2);
        PageCopies.scatter(copier, view, other, new long[] {0, 2, 4});
        assertThat(all(other)).containsExactly(6, 6, 0, 0, 2, 2, 0, 0, 4, 4, 0, 0);
    }

    @Test
    void tokenIndexedCopyValidatesBothSidesBeforeCopying() {
        PageBuffer device = filled("device", 4, 3);
        PageBuffer host = copier.allocate("host", 4, 3);
        PageCopies.copyTokens(copier, device, new long[] {6, 7, 8, 0, 1, 2}, host, new long[] {0, 1, 2, 9, 10, 11}, 3, "backup");
        assertThat(all(host)).containsExactly(3, 3, 3, 0, 0, 0, 0, 0, 0, 1, 1, 1);
        PageBuffer untouched = copier.allocate("untouched", 4, 3);
        assertThatThrownBy(() -> PageCopies.copyTokens(copier, device, new long[] {6, 7, 8}, untouched, new long[] {3, 5, 4}, 3, "load req 9"))
                .isInstanceOf(PageGroupValidationException.class)
                .hasMessage("load req 9 (destination): NON_CONTIGUOUS group 0 offset 1: 5 breaks the run (expected first + 1)");
        assertThatThrownBy(() -> PageCopies.copyTokens(copier, device, new long[] {6, 7}, untouched, new long[] {3, 4}, 3, "load"))
                .isInstanceOf(PageGroupValidationException.class).hasMessageContaining("PARTIAL");
        assertThat(all(untouched)).containsOnly(0);
    }

    @Test
    void componentsAreCheckedTogetherBeforeAnyCopy() {
        PageBuffer mla = filled("mla", 4, 4);
        PageBuffer index = filled("index", 2, 2);
        PageBuffer mlaView = copier.allocate("mla view", 2, 4);
        PageBuffer indexView = copier.allocate("index view", 2, 2);
        assertThatThrownBy(() -> PageCopies.copyComponents(copier, List.of(mla, index), new long[] {3}, List.of(mlaView, indexView), new long[] {0}))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("index: entry 0 names page 3, outside [0, 2)");
        assertThat(all(mlaView)).containsOnly(0);
        PageCopies.copyComponents(copier, List.of(mla, index), new long[] {1}, List.of(mlaView, indexView), new long[] {1});
        assertThat(all(mlaView)).containsExactly(0, 0, 0, 0, 2, 2, 2, 2);
        assertThat(all(indexView)).containsExactly(0, 0, 2, 2);
    }

    @Test
    void mismatchedBuffersAreRefused() {
        PageBuffer a = copier.allocate("a", 2, 4);
        PageBuffer b = copier.allocate("b", 2, 8);
        assertThatThrownBy(() -> copier.copyPages(a, new long[] {0}, b, new long[] {0}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("page sizes differ: a has 4 B, b has 8 B");
        assertThatThrownBy(() -> copier.copyPages(a, new long[] {0, 1}, a, new long[] {0}))
                .hasMessage("page lists differ in length: 2 source vs 1 destination pages");
        assertThatThrownBy(() -> copier.allocate("huge", 1L << 30, 4)).hasMessageContaining("exceed one Java array");
    }

    @Test
    void javaCopierIsAlwaysThere() {
        try (PageCopier c = PageCopiers.open("java")) {
            assertThat(c.deviceName()).isEqualTo("Java heap");
        }
        assertThatThrownBy(() -> PageCopiers.open("nope")).isInstanceOf(CopierUnavailableException.class)
                .hasMessage("page copier 'nope' is unavailable: no provider of that name; available: [java]");
    }
}

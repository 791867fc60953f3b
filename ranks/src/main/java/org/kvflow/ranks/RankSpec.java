package org.kvflow.ranks;

import java.util.List;
import java.util.Objects;
import org.kvflow.core.json.WireEnum;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/**
 * What a rank process holds: its rank, the page memory its pools live in ({@code java},
 * {@code cuda}, {@code cuda:1}, or {@code cuda:*} for one rank per GPU: rank {@code r} on GPU
 * {@code r mod n}), the KV layout, the page size, its pool's pages, and whether the pool is
 * allocated shareable ({@link org.kvflow.pages.PageStore#allocateShared}: exported as
 * POSIX descriptors, so the coordinator can also map every rank's pool side by side in one virtual
 * view) instead of exported by CUDA IPC handles. Travels as the process's command-line arguments
 * ({@link #arguments()}, {@link #parse}).
 */
public record RankSpec(int rank, String memory, KvLayout layout, int pageSize, int pages, boolean shareable) {
    /** @throws IllegalArgumentException naming a negative rank, a page size below 1 or a negative page count */
    public RankSpec {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(layout, "layout");
        if (rank < 0 || pageSize < 1 || pages < 0) {
            throw new IllegalArgumentException("rank " + rank + ", page size " + pageSize + ", " + pages + " pages: rank and pages must be"
                    + " >= 0 and the page size >= 1");
        }
    }

    /** A spec whose pool is exported by CUDA IPC handles (not shareable). */
    public RankSpec(int rank, String memory, KvLayout layout, int pageSize, int pages) {
        this(rank, memory, layout, pageSize, pages, false);
    }

    /** The same spec for another rank. */
    public RankSpec forRank(int other) {
        return new RankSpec(other, memory, layout, pageSize, pages, shareable);
    }

    /** The same spec with a shareable pool. */
    public RankSpec shared() {
        return new RankSpec(rank, memory, layout, pageSize, pages, true);
    }

    /** The arguments {@link #parse} reads back. */
    public List<String> arguments() {
        ModelShape s = layout.shape();
        return List.of(Integer.toString(rank), memory, s.name(), s.kind().wireName(), Integer.toString(s.layers()), Integer.toString(s.latentDim()),
                Integer.toString(s.ropeDim()), Integer.toString(s.indexDim()), layout.dtype().name(), Integer.toString(pageSize),
                Integer.toString(pages), Boolean.toString(shareable));
    }

    /**
     * @throws IllegalArgumentException naming the argument that is missing or not a number
     */
    public static RankSpec parse(List<String> args) {
        if (args.size() != 12) {
            throw new IllegalArgumentException("a rank process takes 12 arguments (rank memory model kind layers latent rope index dtype"
                    + " pageSize pages shareable), got " + args.size() + ": " + args);
        }
        ModelShape shape = new ModelShape(args.get(2), WireEnum.parse(ModelKind.class, args.get(3))
                .orElseThrow(() -> new IllegalArgumentException("rank process argument 3 is not a model kind: " + args.get(3))), number(args, 4), number(args, 5), number(args, 6),
                number(args, 7));
        return new RankSpec(number(args, 0), args.get(1), new KvLayout(shape, KvDtype.valueOf(args.get(8))), number(args, 9), number(args, 10),
                Boolean.parseBoolean(args.get(11)));
    }

    private static int number(List<String> args, int i) {
        try {
            return Integer.parseInt(args.get(i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("rank process argument " + i + " is not a number: " + args.get(i), e);
        }
    }
}

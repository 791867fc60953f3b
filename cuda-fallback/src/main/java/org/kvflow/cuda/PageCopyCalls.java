package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import jcuda.Pointer;
import jcuda.Sizeof;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopies;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PreparedCopies;
import org.kvflow.pages.Residency;

/**
 * The cuda memory's page copies, from the checks to the launch: batches over a device-side table,
 * up to four components over one pair of lists, and batches prepared once and run again
 * ({@link PreparedCopies}) over a table of their own on the device. Its memory calls it holding
 * the memory's lock and frees what the prepared batches keep when it closes.
 */
final class PageCopyCalls {
    private final CudaPageMemory memory;
    private final CopyLaunches copies;
    /** The prepared batches not yet closed: their device tables. */
    private final Set<PreparedTable> prepared = new LinkedHashSet<>();

    PageCopyCalls(CudaPageMemory memory, CopyLaunches copies) {
        this.memory = memory;
        this.copies = copies;
    }

    /**
     * Every copy checked before anything moves; then, when every page size is a multiple of 16
     * bytes, one launch over a device-side table of all the copies (each with its own page lists);
     * else one launch per copy. A table equal to the one already on the device (the same buffers,
     * sizes and lists: a view gathered again from the same pages) was checked when it was sent,
     * so only its lists' lengths and page sizes are checked again.
     */
    long batch(List<PageCopy> batch) {
        List<DeviceBuffer> from = new ArrayList<>(batch.size());
        List<DeviceBuffer> to = new ArrayList<>(batch.size());
        if (!own(batch, from, to)) {
            PageCopies.checkPairs(batch);
            long crossed = 0;
            for (PageCopy copy : batch) {
                crossed += components(List.of(copy.src()), copy.srcPages(), List.of(copy.dst()), copy.dstPages());
            }
            return crossed;
        }
        CopyLaunches.Table table = copies.table(batch, from, to);
        if (!table.sent()) {
            PageCopies.checkPairs(batch);
        }
        if (table.pairs() == 0) {
            return 0;
        }
        memory.current();
        try {
            copies.launchTable(table, batch.size());
            return crossing(batch, from, to);
        } catch (RuntimeException e) {
            throw failed(batch, e);
        }
    }

    /** Copies the same pages of up to four components (MLA latent, indexer pages) in one launch; returns the bytes that crossed. */
    long components(List<PageBuffer> src, long[] srcPages, List<PageBuffer> dst, long[] dstPages) {
        if (src.size() != dst.size() || src.isEmpty()) {
            throw new IllegalArgumentException(src.size() + " source vs " + dst.size() + " destination components");
        }
        if (src.size() > CopyLaunches.MAX_COMPONENTS) {
            throw new IllegalArgumentException(src.size() + " components in one launch; at most " + CopyLaunches.MAX_COMPONENTS);
        }
        List<DeviceBuffer> s = new ArrayList<>();
        List<DeviceBuffer> d = new ArrayList<>();
        for (int c = 0; c < src.size(); c++) {
            PageCopies.checkPairs(src.get(c), srcPages, dst.get(c), dstPages);
            s.add(memory.own(src.get(c)));
            d.add(memory.own(dst.get(c)));
        }
        if (srcPages.length == 0) {
            return 0;
        }
        memory.current();
        try {
            copies.launchComponents(s, srcPages, d, dstPages);
            long crossed = 0;
            for (int c = 0; c < s.size(); c++) {
                crossed += crossing(s.get(c), d.get(c), srcPages.length);
            }
            return crossed;
        } catch (RuntimeException e) {
            throw new CudaCopyException("copying " + srcPages.length + " pages (first " + srcPages[0] + " -> " + dstPages[0] + ") of "
                    + s.stream().map(DeviceBuffer::label).toList() + " to " + d.stream().map(DeviceBuffer::label).toList(), e);
        }
    }

    /**
     * {@code batch} checked now, its table built and sent to a device buffer of its own, where it
     * stays until closed: each run is one launch over it and one wait. A batch the table kernel cannot
     * take (page sizes not multiples of 16 bytes, more rows than a grid has) runs as {@link #batch}.
     */
    PreparedCopies.Prepared prepare(List<PageCopy> batch) {
        PageCopies.checkPairs(batch);
        List<DeviceBuffer> from = new ArrayList<>(batch.size());
        List<DeviceBuffer> to = new ArrayList<>(batch.size());
        if (!own(batch, from, to)) {
            List<PageCopy> kept = batch.stream().map(c -> new PageCopy(c.src(), c.srcPages().clone(), c.dst(), c.dstPages().clone())).toList();
            return new PreparedCopies.Prepared() {
                @Override
                public long run() {
                    synchronized (memory) {
                        return batch(kept);
                    }
                }

                @Override
                public void close() {
                }
            };
        }
        CopyLaunches.Table table = copies.table(batch, from, to);
        long[] built = copies.built(table);
        memory.current();
        DevicePointer device = new DevicePointer();
        cuMemAlloc(device, Math.max(Sizeof.LONG, (long) built.length * Sizeof.LONG));
        try {
            cuMemcpyHtoD(device, Pointer.to(built), (long) built.length * Sizeof.LONG);
        } catch (RuntimeException e) {
            cuMemFree(device);
            throw new CudaCopyException("sending a prepared copy table of " + batch.size() + " buffer pairs", e);
        }
        PreparedTable t = new PreparedTable(device, table.pairs(), batch.size(), table.widest(), from, to, crossing(batch, from, to),
                describe(batch));
        prepared.add(t);
        return t;
    }

    /** Frees every prepared batch's table (the memory is closing). */
    void close() {
        for (PreparedTable t : prepared) {
            t.free();
        }
        prepared.clear();
        copies.close();
    }

    /** Fills {@code from} and {@code to} with the batch's buffers (each this memory's); whether the table kernel can take the batch. */
    private boolean own(List<PageCopy> batch, List<DeviceBuffer> from, List<DeviceBuffer> to) {
        boolean vectors = true;
        for (PageCopy copy : batch) {
            PageCopies.checkShape(copy.src(), copy.srcPages(), copy.dst(), copy.dstPages());
            from.add(memory.own(copy.src()));
            to.add(memory.own(copy.dst()));
            vectors &= copy.src().pageBytes() % 16 == 0;
        }
        return vectors && batch.size() <= CopyLaunches.MAX_TABLE_ROWS;
    }

    private static long crossing(List<PageCopy> batch, List<DeviceBuffer> from, List<DeviceBuffer> to) {
        long crossed = 0;
        for (int i = 0; i < batch.size(); i++) {
            crossed += crossing(from.get(i), to.get(i), batch.get(i).srcPages().length);
        }
        return crossed;
    }

    /** The bytes of {@code pairs} pages copied between a device buffer and a pinned host one (none between two of a kind). */
    private static long crossing(DeviceBuffer src, DeviceBuffer dst, long pairs) {
        return (src.residency() == Residency.DEVICE) != (dst.residency() == Residency.DEVICE) ? pairs * src.pageBytes() : 0;
    }

    private static CudaCopyException failed(List<PageCopy> batch, RuntimeException cause) {
        return new CudaCopyException(describe(batch), cause);
    }

    private static String describe(List<PageCopy> batch) {
        return "copying pages of " + batch.size() + " buffer pairs (first " + batch.getFirst().src().label() + " to " + batch.getFirst().dst().label() + ")";
    }

    /** A prepared batch: its table on the device, its buffers (each checked to be live before a run). */
    private final class PreparedTable implements PreparedCopies.Prepared {
        private final DevicePointer table;
        private final int pairs;
        private final int rows;
        private final int widest;
        private final DeviceBuffer[] buffers;
        private final long crossed;
        private final String what;
        private boolean closed;

        PreparedTable(DevicePointer table, int pairs, int rows, int widest, List<DeviceBuffer> from, List<DeviceBuffer> to, long crossed,
                      String what) {
            this.table = table;
            this.pairs = pairs;
            this.rows = rows;
            this.widest = widest;
            this.buffers = new DeviceBuffer[from.size() + to.size()];
            for (int i = 0; i < from.size(); i++) {
                buffers[2 * i] = from.get(i);
                buffers[2 * i + 1] = to.get(i);
            }
            this.crossed = crossed;
            this.what = what;
        }

        @Override
        public long run() {
            synchronized (memory) {
                if (closed) {
                    throw new IllegalStateException("a prepared copy (" + what + ") was run after it was closed");
                }
                memory.current();
                for (DeviceBuffer b : buffers) {
                    if (b.heldBy != memory) {
                        throw new IllegalStateException("a prepared copy (" + what + ") names " + b.label() + ", freed since it was prepared");
                    }
                }
                if (pairs == 0) {
                    return 0;
                }
                try {
                    copies.launchTableAt(table.address(), pairs, rows, widest);
                } catch (RuntimeException e) {
                    throw new CudaCopyException(what, e);
                }
                return crossed;
            }
        }

        @Override
        public void close() {
            synchronized (memory) {
                if (!closed) {
                    memory.current();
                    free();
                    prepared.remove(this);
                }
            }
        }

        /** Frees the table; the memory's context is current. */
        void free() {
            if (!closed) {
                closed = true;
                cuMemFree(table);
            }
        }
    }
}

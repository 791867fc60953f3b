package org.kvflow.pages;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.zip.Checksum;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;

/**
 * The KV pages of one holder (a CP rank, a full view, a decode instance): per layer one MLA buffer
 * of {@code pages·ps} rows and one indexer buffer of {@code pages} indexer pages (contract §3.2,
 * §3.3), all in one {@link PageMemory}. Page {@code k} occupies bytes
 * {@code [k·pageBytes, (k+1)·pageBytes)} of each buffer. Every read, write and copy of a page goes
 * through here and is done by the memory that owns the bytes; a bad page or range is refused
 * before anything moves. Closing frees the buffers (not the memory). Not thread-safe; writers of
 * disjoint pages of a heap store may run concurrently.
 *
 * <p>The bytes its calls move across the host are counted in the memory's {@link HostTraffic}
 * under one stage: {@link HostTraffic#UNATTRIBUTED} for the store itself, the stage's name for the
 * view a stage works on ({@link #countedAs}).
 */
public final class PageStore implements AutoCloseable {
    private final PageMemory memory;
    private final String label;
    private final KvLayout layout;
    private final int pageSize;
    private final int pages;
    private final StoreBuffers buffers;
    private final Residency residency;
    /** The store whose buffers these are: this one, or the one this is a stage's view of. */
    private final PageStore owner;
    /** Where the bytes this store's calls cross are counted. */
    private final HostTraffic.Meter meter;
    /** The owner's views, by stage. */
    private final java.util.Map<String, PageStore> views;
    /** What a use after {@link #closeWith} throws; null while open (kept by the owner). */
    private volatile @Nullable Supplier<? extends RuntimeException> closedError;

    private PageStore(PageMemory memory, String label, KvLayout layout, StoreBuffers buffers) {
        this.memory = memory;
        this.label = label;
        this.layout = layout;
        this.buffers = buffers;
        this.pageSize = buffers.pageSize();
        this.pages = buffers.pages();
        this.residency = buffers.residency();
        this.owner = this;
        this.meter = memory.hostTraffic().meter(HostTraffic.UNATTRIBUTED);
        this.views = new java.util.concurrent.ConcurrentHashMap<>();
    }

    private PageStore(PageStore owner, String stage) {
        this.memory = owner.memory;
        this.label = owner.label;
        this.layout = owner.layout;
        this.buffers = owner.buffers;
        this.pageSize = owner.pageSize;
        this.pages = owner.pages;
        this.residency = owner.residency;
        this.owner = owner;
        this.meter = memory.hostTraffic().meter(stage);
        this.views = owner.views;
    }

    /**
     * This store as {@code stage} uses it: the same pages and buffers, with the bytes its calls
     * move across the host counted under {@code stage}, on whatever thread they run. Closing a
     * view closes the store.
     *
     * @param stage the stage's name ({@code kvflow.transfer}, …)
     * @return the view (one per stage and store)
     */
    public PageStore countedAs(String stage) {
        java.util.Objects.requireNonNull(stage, "stage");
        return stage.equals(meter.stage()) ? this : views.computeIfAbsent(stage, s -> new PageStore(owner, s));
    }

    private static PageStore allocated(PageMemory memory, String label, KvLayout layout, int pageSize, int pages, StoreBuffers.Kind kind) {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(layout, "layout");
        return new PageStore(memory, label, layout, StoreBuffers.allocate(memory, label, layout, pageSize, pages, kind));
    }

    /**
     * The pages of a store that another process holds and exported ({@link #exportHandles}),
     * opened in place in {@code memory}: reads, writes and copies touch the other process's
     * memory; {@link #close()} closes the handles and leaves its pages alone.
     *
     * @throws MissingCapabilityException if {@code memory} cannot open other processes' buffers
     * @throws IllegalArgumentException if the handles do not cover {@code layout}'s layers
     */
    public static PageStore open(PageMemory memory, String label, KvLayout layout, StoreHandles handles) {
        return new PageStore(memory, label, layout, StoreBuffers.open(memory, label, layout, List.of(handles)));
    }

    /**
     * Handles another process opens this store's buffers by ({@link #open}): one per layer and
     * component, valid while this store lives.
     *
     * @throws MissingCapabilityException if this store's memory shares no buffer with other processes
     */
    public StoreHandles exportHandles() {
        BufferExport export = StoreBuffers.need(memory, BufferExport.class, "shares no buffer with other processes");
        List<byte[]> m = new ArrayList<>();
        List<byte[]> i = new ArrayList<>();
        for (int l = 0; l < layers(); l++) {
            m.add(export.exportBuffer(buffer(l, KvComponent.MLA)));
            i.add(export.exportBuffer(buffer(l, KvComponent.INDEX)));
        }
        return new StoreHandles(pageSize, pages, m, i);
    }

    /** {@code pages} zeroed pages of {@code layout} in {@code memory}'s own kind of memory. */
    public static PageStore allocate(PageMemory memory, String label, KvLayout layout, int pageSize, int pages) {
        return allocated(memory, label, layout, pageSize, pages, StoreBuffers.Kind.OWN);
    }

    /**
     * {@code pages} zeroed pages that other processes can open in place, also side by side with
     * other stores' ({@link BufferExport#allocateShared}; an ordinary store where the memory has no such kind).
     */
    public static PageStore allocateShared(PageMemory memory, String label, KvLayout layout, int pageSize, int pages) {
        return allocated(memory, label, layout, pageSize, pages, StoreBuffers.Kind.SHARED);
    }

    /**
     * The stores of several processes (their {@link #exportHandles}, from {@link #allocateShared}
     * stores of one layout and size) opened side by side in one store of {@code memory}: store
     * {@code i}'s page {@code k} is page {@code i·(pages() ÷ stores) + k}. A virtual view of
     * every rank's pool, read in place; nothing is copied.
     *
     * @throws MissingCapabilityException if {@code memory} cannot map other processes' buffers side by side
     * @throws IllegalArgumentException if the stores differ in page size or pages, or do not cover the layout's layers
     */
    public static PageStore openSideBySide(PageMemory memory, String label, KvLayout layout, List<StoreHandles> stores) {
        StoreHandles first = stores.getFirst();
        int layers = layout.shape().layers();
        for (int i = 0; i < stores.size(); i++) {
            StoreHandles h = stores.get(i);
            if (h.pageSize() != first.pageSize() || h.pages() != first.pages() || h.mla().size() != layers) {
                throw new IllegalArgumentException(label + ": store " + i + " has " + h.pages() + " pages of " + h.pageSize() + " tokens and "
                        + h.mla().size() + " layers; store 0 has " + first.pages() + " of " + first.pageSize() + " and the layout " + layers);
            }
        }
        return new PageStore(memory, label, layout, StoreBuffers.open(memory, label, layout, stores));
    }

    /**
     * {@code pages} zeroed pages in {@code memory}'s host staging memory (pinned for {@code cuda},
     * so copies to and from its device stores are DMA): HiCache backups and loads, transfer staging.
     */
    public static PageStore allocateHost(PageMemory memory, String label, KvLayout layout, int pageSize, int pages) {
        return allocated(memory, label, layout, pageSize, pages, StoreBuffers.Kind.HOST);
    }

    /** {@code pages} zeroed pages on the Java heap. */
    public static PageStore onHeap(String label, KvLayout layout, int pageSize, int pages) {
        return allocated(new HeapPageMemory(), label, layout, pageSize, pages, StoreBuffers.Kind.OWN);
    }

    public String label() {
        return label;
    }

    public KvLayout layout() {
        return layout;
    }

    public int pageSize() {
        return pageSize;
    }

    public int pages() {
        return pages;
    }

    public int layers() {
        return buffers.layers();
    }

    /** The memory that owns these pages. */
    public PageMemory memory() {
        return memory;
    }

    /** Where the bytes live. */
    public Residency residency() {
        return residency;
    }

    /** Bytes of one page of {@code component} in one layer. */
    public int pageBytes(KvComponent component) {
        return component == KvComponent.MLA ? mlaPageBytes() : indexPageBytes();
    }

    public int mlaPageBytes() {
        return (int) layout.mlaPageBytes(pageSize);
    }

    public int indexPageBytes() {
        return (int) layout.indexPageBytes(pageSize);
    }

    /**
     * Stores the MLA rows of {@code count} consecutive tokens ({@link KvLayout#mlaRowBytes()} bytes
     * each, from {@code src[srcOffset]}) at rows {@code firstRow ..} of {@code layer}: one copy.
     */
    public void writeMlaRows(int layer, long firstRow, byte[] src, int srcOffset, int count) {
        checkRows(firstRow, count);
        int rowBytes = layout.mlaRowBytes();
        meter.add(memory.write(buffer(layer, KvComponent.MLA), firstRow * rowBytes, src, srcOffset, count * rowBytes));
    }

    /**
     * Stores the quantised index keys of {@code count} consecutive tokens at rows
     * {@code firstRow ..} of {@code layer}, all in one page (contract §3.3): their fp8 codes at slots
     * {@code firstRow % ps ..} of the page, their per-128 scales in the page's scale region. Two copies.
     *
     * @throws RowOutOfRangeException if the rows leave the store or cross a page boundary
     */
    public void writeIndexRows(int layer, long firstRow, byte[] codes, int codesOffset, float[] scales, int scalesOffset, int count) {
        checkRows(firstRow, count);
        if (firstRow / pageSize != (firstRow + count - 1) / pageSize) {
            throw new RowOutOfRangeException(label, firstRow + count - 1, (firstRow / pageSize + 1) * pageSize);
        }
        int dim = layout.shape().indexDim();
        int blocks = KvLayout.tiles(dim);
        int slot = (int) (firstRow % pageSize);
        long pageStart = firstRow / pageSize * indexPageBytes();
        meter.add(memory.write(buffer(layer, KvComponent.INDEX), pageStart + (long) slot * dim, codes, codesOffset, count * dim));
        byte[] scaleBytes = new byte[count * blocks * KvLayout.SCALE_BYTES];
        ByteBuffer.wrap(scaleBytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().put(scales, scalesOffset, count * blocks);
        meter.add(memory.write(buffer(layer, KvComponent.INDEX), pageStart + (long) pageSize * dim + (long) slot * blocks * KvLayout.SCALE_BYTES,
                scaleBytes, 0, scaleBytes.length));
    }

    /** Page {@code page} of {@code component} in every layer, layer-major: the payload of a HiCache record (contract §11.4). */
    public byte[] readPage(KvComponent component, long page) {
        checkPage(page);
        int bytes = pageBytes(component);
        byte[] payload = new byte[layers() * bytes];
        for (int l = 0; l < layers(); l++) {
            meter.add(memory.read(buffer(l, component), page * bytes, bytes, payload, l * bytes));
        }
        return payload;
    }

    /** Page {@code page} of {@code component} in {@code layer}. */
    public byte[] readPage(int layer, KvComponent component, long page) {
        checkPage(page);
        int bytes = pageBytes(component);
        byte[] out = new byte[bytes];
        meter.add(memory.read(buffer(layer, component), page * bytes, bytes, out, 0));
        return out;
    }

    /** Writes a layer-major payload ({@link #readPage(KvComponent, long)}'s form) into page {@code page} of every layer. */
    public void writePage(KvComponent component, long page, byte[] payload) {
        checkPage(page);
        int bytes = pageBytes(component);
        if (payload.length != layers() * bytes) {
            throw new ByteRangeException(label + " " + component + " payload of page " + page, 0, payload.length, (long) layers() * bytes);
        }
        for (int l = 0; l < layers(); l++) {
            meter.add(memory.write(buffer(l, component), page * bytes, payload, l * bytes, bytes));
        }
    }

    /**
     * Page {@code page} of {@code component} in {@code layer} as a writable view of the store's own
     * bytes, for decoders that fill a host store in place (no copy).
     *
     * @throws NotHostMemoryException if the store lies in device memory
     */
    public ByteBuffer hostView(int layer, KvComponent component, long page) {
        checkPage(page);
        int bytes = pageBytes(component);
        return memory.hostView(buffer(layer, component), page * bytes, bytes);
    }

    /** Reads {@code count} pages of {@code component} in {@code layer} from {@code firstPage} into {@code dst} (filling {@code count} pages of it). */
    public void readPages(int layer, KvComponent component, long firstPage, int count, ByteBuffer dst) {
        checkRun(firstPage, count);
        int bytes = pageBytes(component);
        meter.add(memory.read(buffer(layer, component), firstPage * bytes, dst.slice(dst.position(), count * bytes)));
        dst.position(dst.position() + count * bytes);
    }

    /** Writes one page of {@code component} in {@code layer} from the next {@code pageBytes} bytes of {@code src}. */
    public void writePage(int layer, KvComponent component, long page, ByteBuffer src) {
        checkPage(page);
        int bytes = pageBytes(component);
        meter.add(memory.write(buffer(layer, component), page * bytes, src.slice(src.position(), bytes)));
        src.position(src.position() + bytes);
    }

    /**
     * Pages {@code pages} of {@code component} in {@code layer}, in list order, as one array (page
     * {@code pages[i]} at {@code i · pageBytes}): one read per run of consecutive pages.
     *
     * @throws PageOutOfRangeException naming the first page outside the store
     */
    public byte[] readPages(int layer, KvComponent component, long[] pages) {
        PageLists.check(label, pages, this.pages);
        int bytes = pageBytes(component);
        byte[] out = new byte[Math.multiplyExact(pages.length, bytes)];
        PageBuffer buffer = buffer(layer, component);
        forEachRun(pages, (start, end) -> meter.add(memory.read(buffer, pages[start] * bytes, (end - start) * bytes, out, start * bytes)));
        return out;
    }

    /**
     * Writes pages {@code pages} of {@code component} in {@code layer} from {@code src} (page
     * {@code pages[i]} from {@code i · pageBytes}), the mirror of {@link #readPages}: every page is
     * checked before the first is written, and there is one write per run of consecutive pages.
     *
     * @throws PageOutOfRangeException naming the first page outside the store
     * @throws IllegalArgumentException if {@code src} does not hold exactly those pages
     */
    public void writePages(int layer, KvComponent component, long[] pages, byte[] src) {
        PageLists.check(label, pages, this.pages);
        int bytes = pageBytes(component);
        if (src.length != (long) pages.length * bytes) {
            throw new IllegalArgumentException(label + ": " + src.length + " bytes for " + pages.length + " pages of " + bytes + " bytes");
        }
        PageBuffer buffer = buffer(layer, component);
        forEachRun(pages, (start, end) -> meter.add(memory.write(buffer, pages[start] * bytes, src, start * bytes, (end - start) * bytes)));
    }

    /** What is done with list positions {@code [start, end)}, whose pages follow one another. */
    private interface Run {
        void apply(int start, int end);
    }

    /** Calls {@code run} once per run of consecutive pages of {@code pages}, in list order. */
    private static void forEachRun(long[] pages, Run run) {
        for (int start = 0, i = 1; i <= pages.length; i++) {
            if (i == pages.length || pages[i] != pages[i - 1] + 1) {
                run.apply(start, i);
                start = i;
            }
        }
    }

    /** A copy of a whole layer buffer of {@code component} (every page), for host code that reads it row by row. */
    public byte[] readLayer(int layer, KvComponent component) {
        PageBuffer buffer = buffer(layer, component);
        return readBytes(layer, component, 0, Math.toIntExact(buffer.bytes()));
    }

    /** A copy of bytes {@code [offset, offset + length)} of a layer buffer of {@code component}. */
    public byte[] readBytes(int layer, KvComponent component, long offset, int length) {
        byte[] out = new byte[length];
        meter.add(memory.read(buffer(layer, component), offset, length, out, 0));
        return out;
    }

    /** Overwrites bytes of a layer buffer of {@code component} from {@code offset} with {@code src}. */
    public void writeBytes(int layer, KvComponent component, long offset, byte[] src) {
        meter.add(memory.write(buffer(layer, component), offset, src, 0, src.length));
    }

    /** Feeds bytes {@code [offset, offset + length)} of a layer buffer of {@code component} to {@code checksum}. */
    public void checksum(int layer, KvComponent component, long offset, int length, Checksum checksum) {
        meter.add(memory.checksum(buffer(layer, component), offset, length, checksum));
    }

    /**
     * {@code this[dstPages[i]] ← src[srcPages[i]]}, every layer, both components: done by the
     * memory owning both stores (all of a store's buffers in as few launches as it can), or staged
     * through the host when they live in different memories.
     * Every page of both lists is checked first.
     *
     * @throws IncompatibleStoresException if the stores differ in layout or page size
     * @throws PageOutOfRangeException naming the first page outside its store
     */
    public void copyPagesFrom(PageStore src, long[] srcPages, long[] dstPages) {
        gatherFrom(List.of(src), List.of(srcPages), List.of(dstPages));
    }

    /**
     * {@link #copyPagesFrom} from several stores at once ({@code sources.get(k)}'s pages
     * {@code srcPages.get(k)} to this store's {@code dstPages.get(k)}): a full view from every owner.
     * Every list is checked first; stores in this store's memory are copied as one batch.
     *
     * @throws IncompatibleStoresException if a source differs in layout or page size
     * @throws PageOutOfRangeException naming the first page outside its store
     */
    public void gatherFrom(List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages) {
        gatherFrom(sources, srcPages, dstPages, KvComponent.values());
    }

    /**
     * {@link #copyPagesFrom} of one component only (every layer): a restore that has one pool of a
     * page staged and the other not yet.
     *
     * @throws IncompatibleStoresException if the stores differ in layout or page size
     * @throws PageOutOfRangeException naming the first page outside its store
     */
    public void copyPagesFrom(PageStore src, KvComponent component, long[] srcPages, long[] dstPages) {
        gatherFrom(List.of(src), List.of(srcPages), List.of(dstPages), component);
    }

    private void gatherFrom(List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages, KvComponent... components) {
        StoreGather.into(this, sources, srcPages, dstPages, components);
    }

    /** Counts bytes that one of this store's calls moved across the host (a gather's batch). */
    void countCrossed(long bytes) {
        meter.add(bytes);
    }

    /** Frees the buffers in the memory; idempotent. */
    @Override
    public void close() {
        closeWith(() -> new IllegalStateException(label + " is closed"));
    }

    /**
     * Frees the buffers like {@link #close()}, and makes every later use throw what
     * {@code onUse} makes instead of the plain "closed" error: a store opened from a process that
     * died says so, with that error's type and code. Idempotent; the first reason stays.
     *
     * @param onUse the error each later use throws
     */
    public void closeWith(Supplier<? extends RuntimeException> onUse) {
        if (owner != this) {
            owner.closeWith(onUse);
            return;
        }
        closeOwn(onUse);
    }

    private synchronized void closeOwn(Supplier<? extends RuntimeException> onUse) {
        if (closedError == null) {
            closedError = Objects.requireNonNull(onUse, "onUse");
        }
        buffers.free(memory);
    }

    /**
     * The buffer of {@code component} in {@code layer}: a handle for capabilities of this store's
     * memory that work on its buffers in place (the kernels' row access); its bytes move only
     * through {@link #memory()}.
     *
     * @throws IllegalStateException (or the error of {@link #closeWith}) if the store is closed
     */
    public PageBuffer buffer(int layer, KvComponent component) {
        PageBuffer buffer = buffers.get(layer, component);
        if (buffer == null) {
            Supplier<? extends RuntimeException> error = owner.closedError;
            throw error != null ? error.get() : new IllegalStateException(label + " is closed");
        }
        return buffer;
    }

    /**
     * @throws IllegalArgumentException naming the count if it is below one (a write of no rows is a caller's slip)
     * @throws RowOutOfRangeException if rows {@code firstRow .. firstRow + count - 1} do not all lie in this store
     */
    public void checkRows(long firstRow, int count) {
        if (count < 1) {
            throw new IllegalArgumentException(label + ": a row write needs at least one row, count was " + count);
        }
        long rows = (long) pages * pageSize;
        if (firstRow < 0 || firstRow >= rows) {
            throw new RowOutOfRangeException(label, firstRow, rows);
        }
        if (firstRow + count > rows) {
            throw new RowOutOfRangeException(label, firstRow + count - 1, rows);
        }
    }

    /**
     * @throws PageOutOfRangeException naming this store and the first entry of {@code pages} outside it
     */
    public void checkPages(long[] pages) {
        PageLists.check(label, pages, this.pages);
    }

    private void checkPage(long page) {
        PageLists.check(label, new long[] {page}, pages);
    }

    private void checkRun(long firstPage, int count) {
        if (count > 0) {
            PageLists.check(label, new long[] {firstPage, firstPage + count - 1}, pages);
        }
    }

    @Override
    public String toString() {
        return "PageStore[" + label + ": " + pages + " pages of " + pageSize + " tokens, " + layers() + " layers, " + memory.name() + "]";
    }
}

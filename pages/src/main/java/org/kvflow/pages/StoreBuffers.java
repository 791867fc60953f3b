package org.kvflow.pages;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;

/**
 * The buffers behind one {@link PageStore}: per layer one MLA and one indexer buffer, allocated in
 * one of a memory's kinds or opened from handles other processes exported, and freed together. An
 * acquisition that fails part way frees what it had acquired before it throws.
 */
final class StoreBuffers {
    /** Where allocated buffers come from. */
    enum Kind { OWN, HOST, SHARED }

    private final int pageSize;
    private final int pages;
    private final @Nullable PageBuffer[] mla;
    private final @Nullable PageBuffer[] index;

    private StoreBuffers(int pageSize, int pages, int layers) {
        this.pageSize = pageSize;
        this.pages = pages;
        this.mla = new PageBuffer[layers];
        this.index = new PageBuffer[layers];
    }

    /** Opens one layer's buffer of one component from every store's handle of it. */
    private interface Opener {
        PageBuffer open(String label, List<byte[]> handles, int pageBytes);
    }

    /** Acquires one layer's buffer of one component. */
    private interface Source {
        PageBuffer acquire(String name, int layer, KvComponent component, int pageBytes);
    }

    /**
     * {@code pages} zeroed pages of {@code layout} per layer and component, of {@code kind}.
     *
     * @throws IllegalArgumentException if the layout has no indexer, or the sizes are out of range
     */
    static StoreBuffers allocate(PageMemory memory, String label, KvLayout layout, int pageSize, int pages, Kind kind) {
        if (!layout.shape().kind().hasIndexer()) {
            throw new IllegalArgumentException("a KV page store holds NSA MLA layouts (latent + indexer), not " + layout.shape().kind().wireName());
        }
        if (pageSize < 1 || pages < 0) {
            throw new IllegalArgumentException(label + ": pageSize must be >= 1 and pages >= 0, were " + pageSize + ", " + pages);
        }
        StoreBuffers b = new StoreBuffers(pageSize, pages, layout.shape().layers());
        b.fill(memory, label, layout, (name, layer, component, pageBytes) -> switch (kind) {
            case OWN -> memory.allocate(name, pages, pageBytes);
            case HOST -> memory.allocateHost(name, pages, pageBytes);
            case SHARED -> memory.capability(BufferExport.class).map(e -> e.allocateShared(name, pages, pageBytes))
                    .orElseGet(() -> memory.allocate(name, pages, pageBytes));
        });
        return b;
    }

    /**
     * The buffers other processes exported, opened in {@code memory}: one store's as they are,
     * several side by side with one stride in pages for every buffer, so page {@code i·stride + k}
     * is store {@code i}'s page {@code k} in every layer and component.
     *
     * @throws MissingCapabilityException if {@code memory} cannot open them
     * @throws IllegalArgumentException if the handles do not cover {@code layout}'s layers
     */
    static StoreBuffers open(PageMemory memory, String label, KvLayout layout, List<StoreHandles> stores) {
        StoreHandles handles = stores.getFirst();
        int layers = layout.shape().layers();
        if (handles.mla().size() != layers || handles.index().size() != layers) {
            throw new IllegalArgumentException(label + ": " + handles.mla().size() + " MLA and " + handles.index().size()
                    + " indexer handles for a layout of " + layers + " layers");
        }
        int pageSize = handles.pageSize();
        Opener opener;
        long stride;
        if (stores.size() == 1) {
            BufferImport importer = need(memory, BufferImport.class, "opens no buffer of another process");
            stride = handles.pages();
            opener = (name, each, pageBytes) -> importer.importBuffer(name, each.getFirst(), handles.pages(), pageBytes);
        } else {
            SideBySideViews views = need(memory, SideBySideViews.class, "maps no buffers of other processes side by side");
            long step = views.sideBySideStride(handles.pages(), Math.toIntExact(layout.mlaPageBytes(pageSize)), Math.toIntExact(layout.indexPageBytes(pageSize)));
            stride = step;
            opener = (name, each, pageBytes) -> views.importSideBySide(name, each, handles.pages(), pageBytes, step);
        }
        StoreBuffers b = new StoreBuffers(pageSize, Math.toIntExact(stride * stores.size()), layers);
        b.fill(memory, label, layout, (name, layer, component, pageBytes) -> opener.open(name,
                stores.stream().map(h -> (component == KvComponent.MLA ? h.mla() : h.index()).get(layer)).toList(), pageBytes));
        return b;
    }

    /**
     * @throws MissingCapabilityException saying that {@code memory} {@code what} where it lacks {@code type}
     */
    static <C> C need(PageMemory memory, Class<C> type, String what) {
        return memory.capability(type).orElseThrow(() -> new MissingCapabilityException(memory.name(), type, what));
    }

    private void fill(PageMemory memory, String label, KvLayout layout, Source source) {
        int mlaBytes = Math.toIntExact(layout.mlaPageBytes(pageSize));
        int indexBytes = Math.toIntExact(layout.indexPageBytes(pageSize));
        try {
            for (int l = 0; l < mla.length; l++) {
                mla[l] = source.acquire(label + " mla layer " + l, l, KvComponent.MLA, mlaBytes);
                index[l] = source.acquire(label + " index layer " + l, l, KvComponent.INDEX, indexBytes);
            }
        } catch (RuntimeException e) {
            free(memory);
            throw e;
        }
    }

    int pageSize() {
        return pageSize;
    }

    int pages() {
        return pages;
    }

    int layers() {
        return mla.length;
    }

    /** {@return where the bytes live} */
    Residency residency() {
        PageBuffer first = mla.length == 0 ? null : mla[0];
        return first == null ? Residency.HEAP : first.residency();
    }

    /** {@return the buffer of {@code component} in {@code layer}, or null once freed} */
    @Nullable PageBuffer get(int layer, KvComponent component) {
        return component == KvComponent.MLA ? mla[layer] : index[layer];
    }

    /** Frees every buffer still held; idempotent. */
    void free(PageMemory memory) {
        for (int l = 0; l < mla.length; l++) {
            if (mla[l] != null) {
                memory.free(mla[l]);
                mla[l] = null;
            }
            if (index[l] != null) {
                memory.free(index[l]);
                index[l] = null;
            }
        }
    }
}

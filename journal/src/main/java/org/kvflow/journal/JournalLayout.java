package org.kvflow.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.json.JsonDocuments;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/**
 * What a journal's payloads are: page size and KV layout. Stored beside the queue as
 * {@value #FILE} when a journal is created, checked when it is reopened, and read by replay to
 * know each pool's payload length ({@code L·ps·rowBytes}, contract §11.4).
 *
 * @param pageSize tokens per page
 * @param layout   the KV row layout (an NSA MLA model: kv and indexer pools)
 */
public record JournalLayout(int pageSize, KvLayout layout) {
    /** The metadata file in the journal directory. */
    public static final String FILE = "kvflow-journal.json";

    /** Checks the page size and that the layout has an indexer pool. */
    public JournalLayout {
        Objects.requireNonNull(layout, "layout");
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
        if (!layout.shape().kind().hasIndexer()) {
            throw new IllegalArgumentException("HiCache journals hold NSA MLA pages (kv + indexer)");
        }
    }

    /**
     * Layers per page payload.
     *
     * @return the model's layer count
     */
    public int layers() {
        return layout.shape().layers();
    }

    /**
     * Payload bytes of one page of a pool for all layers.
     *
     * @param pool the kv or the indexer pool
     * @return bytes
     */
    public long payloadBytes(HiCachePool pool) {
        long perLayer = pool == HiCachePool.KV ? layout.mlaPageBytes(pageSize) : layout.indexPageBytes(pageSize);
        return perLayer * layers();
    }

    /** Writes {@value #FILE} into {@code dir}, or checks the one there. */
    void writeOrCheck(Path dir) {
        Path file = dir.resolve(FILE);
        try {
            if (Files.exists(file)) {
                JournalLayout existing = read(dir);
                if (!existing.equals(this)) {
                    throw new JournalIoException(dir + " holds a journal of " + existing + ", not " + this);
                }
                return;
            }
            // written aside and moved in atomically: journals of other ranks may be opening this directory too
            Path temp = Files.createTempFile(dir, FILE, ".tmp");
            Files.writeString(temp, JsonDocuments.json().writeValueAsString(toJson()));
            try {
                Files.move(temp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                Files.delete(temp);
            }
            if (!read(dir).equals(this)) {
                throw new JournalIoException(dir + " holds a journal of " + read(dir) + ", not " + this);
            }
        } catch (IOException e) {
            throw new JournalIoException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Reads {@value #FILE} from a journal directory.
     *
     * @param dir the journal directory
     * @return the layout it records
     * @throws JournalIoException naming the directory when the file is missing or unreadable
     */
    public static JournalLayout read(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new JournalIoException(dir + " is not a kvflow journal: " + FILE + " is missing");
        }
        JsonFields f = JsonFields.of(JsonDocuments.parseJson(file), "$", List.of("pageSize", "model", "layers", "latentDim",
                "ropeDim", "indexDim", "kvDtype"));
        ModelShape shape = new ModelShape("journal", f.requireEnum("model", ModelKind.class),
                (int) f.requireInteger("layers", 1, Integer.MAX_VALUE), (int) f.requireInteger("latentDim", 1, Integer.MAX_VALUE),
                (int) f.requireInteger("ropeDim", 0, Integer.MAX_VALUE), (int) f.requireInteger("indexDim", 1, Integer.MAX_VALUE));
        return new JournalLayout((int) f.requireInteger("pageSize", 1, Integer.MAX_VALUE),
                new KvLayout(shape, f.requireEnum("kvDtype", KvDtype.class)));
    }

    private JsonNode toJson() {
        ObjectNode o = JsonDocuments.json().createObjectNode();
        ModelShape s = layout.shape();
        return o.put("pageSize", pageSize).put("model", s.kind().wireName()).put("layers", s.layers())
                .put("latentDim", s.latentDim()).put("ropeDim", s.ropeDim()).put("indexDim", s.indexDim())
                .put("kvDtype", layout.dtype().wireName());
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JournalLayout other)) {
            return false;
        }
        ModelShape a = layout.shape();
        ModelShape b = other.layout.shape();
        return pageSize == other.pageSize && layout.dtype() == other.layout.dtype() && a.kind() == b.kind()
                && a.layers() == b.layers() && a.latentDim() == b.latentDim() && a.ropeDim() == b.ropeDim() && a.indexDim() == b.indexDim();
    }

    @Override
    public int hashCode() {
        return Objects.hash(pageSize, layout.dtype(), layout.shape().layers());
    }

    @Override
    public String toString() {
        ModelShape s = layout.shape();
        return "ps " + pageSize + ", " + s.kind().wireName() + " " + s.layers() + " layers " + s.latentDim() + "+" + s.ropeDim()
                + "/" + s.indexDim() + " " + layout.dtype().wireName();
    }
}

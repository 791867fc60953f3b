package org.kvflow.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * The page kernels shipped as resources (copies, rows, checksums): a fatbin per kernel ({@code sm_90} SASS plus
 * {@code compute_90} PTX for newer GPUs) and the PTX text beside it for inspection. Loading a
 * fatbin skips the driver's PTX JIT, which costs far more per module (docs/decisions.md, D8).
 */
public enum CudaKernels {
    /** 16-byte copies; page sizes must be multiples of 16 bytes. */
    COPY_PAGES_V4("copy_pages_v4", "copy_pages_v4", 15),
    /** 16-byte copies of a batch of page copies, each with its own page lists, over a device-side table: one launch per batch. */
    COPY_PAGES_TABLE_V4("copy_pages_table_v4", "copy_pages_v4", 6),
    /** Byte copies for any page size. */
    COPY_PAGES_U8("copy_pages_u8", "copy_pages_u8", 15),
    /** A chunk's computed KV rows from task-graph arrays into their stores' pages. */
    STORE_ROWS("store_rows", "kv_rows", 17),
    /** A view's index keys (codes and scales) out of its indexer pages into task-graph arrays. */
    INDEX_KEYS("index_keys", "kv_rows", 7),
    /** A view's MLA keys, dequantised to floats, out of its pages into a task-graph array. */
    KEY_ROWS("key_rows", "kv_rows", 11),
    /** CRC32C of the same pages of several buffers, a warp a page of a buffer, copying each as it is read where a destination is given. */
    CRC32C_PAGES("crc32c_pages", "crc32c", 4),
    /** Each page's checksums over the buffers {@link #CRC32C_PAGES} left joined into one, a warp a page. */
    CRC32C_JOIN("crc32c_join", "crc32c", 3);

    private final String entry;
    private final String module;
    private final int parameters;

    CudaKernels(String entry, String module, int parameters) {
        this.entry = entry;
        this.module = module;
        this.parameters = parameters;
    }

    /** How many parameters the entry point takes (what a launch passes). */
    public int parameters() {
        return parameters;
    }

    /** The {@code extern "C"} entry point. */
    public String entry() {
        return entry;
    }

    /** The module (fatbin) that holds the entry point. */
    String module() {
        return module;
    }

    /** The fatbin bytes. */
    public byte[] fatbin() {
        return resource("/cuda/" + module + ".fatbin");
    }

    /** The PTX text, NUL-terminated as the driver wants it. */
    public byte[] ptx() {
        byte[] text = resource("/cuda/" + module + ".ptx");
        return Arrays.copyOf(text, text.length + 1);
    }

    /** A kernel resource of this module's jar, e.g. {@code /cuda/page_move.fatbin}. */
    public static byte[] resource(String path) {
        try (InputStream in = CudaKernels.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("kernel resource " + path + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(path, e);
        }
    }
}

package org.kvflow.transport.tcp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;

import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

/** What the transport tests send: the pages of a one-layer toy NSA/MLA layout in fp8 (latent 40, rope 8, index keys 24). */
public final class TcpFixtures {
    public static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 1, 40, 8, 24), KvDtype.FP8_E4M3);

    private TcpFixtures() {}

    /** Two ranks send their runs of request {@code id}, 5 pages: rank 0 its pages 1..3, rank 1 its pages 4..5; both complete. Returns the decode pages. */
    public static long[] twoRankTransfer(TcpTransferBackend prefill, String id, PageStore rank0, PageStore rank1) {
        long[] d = prefill.open(id, 5, 2).block();
        prefill.send(id, 0, new PageRun(1, d[0], 3), rank0).block();
        prefill.send(id, 1, new PageRun(4, d[3], 2), rank1).block();
        prefill.complete(id, 0).block();
        prefill.complete(id, 1).block();
        return d;
    }

    /**
     * The mutual-TLS material of {@code name} (server, tenant-a, tenant-b) from src/test/resources/tls-tenants,
     * copied out into {@code dir}, since tests of other modules read it from this module's test jar.
     */
    public static TransferTls tenantTls(Path dir, String name) throws IOException {
        return new TransferTls(tenantFile(dir, name + ".crt"), tenantFile(dir, name + ".key"), tenantFile(dir, "ca.crt"));
    }

    private static Path tenantFile(Path dir, String file) throws IOException {
        Path to = dir.resolve(file);
        if (!Files.exists(to)) {
            try (var in = TcpFixtures.class.getResourceAsStream("/tls-tenants/" + file)) {
                Files.copy(Objects.requireNonNull(in, "/tls-tenants/" + file), to);
            }
        }
        return to;
    }
}

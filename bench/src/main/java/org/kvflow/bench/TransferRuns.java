package org.kvflow.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.RunShape;
import org.kvflow.transport.tcp.DecodeServerProcess;
import org.kvflow.transport.tcp.TcpTransferBackend;
import reactor.core.publisher.Flux;

/**
 * What the transfer benches share: decode servers started as child JVMs of this host, the port
 * each listens on, and one timed send of a CP request's shares to one of them.
 */
final class TransferRuns {
    private TransferRuns() {}

    /** Tokens a page, as the benches' requests use them. */
    static final int PS = 64;

    /**
     * A transfer bench's request, from its arguments {@code [pages 2048] [layers 61] [ranks 8] [runs 3]}:
     * DeepSeek V3.2's fp8 widths, each rank holding {@code pages / ranks} pages.
     */
    record Request(int pages, int layers, int ranks, int runs, KvLayout layout) {
        static Request of(String[] args) {
            int layers = args.length > 1 ? Integer.parseInt(args[1]) : 61;
            return new Request(args.length > 0 ? Integer.parseInt(args[0]) : 2048, layers, args.length > 2 ? Integer.parseInt(args[2]) : 8,
                    args.length > 3 ? Integer.parseInt(args[3]) : 3,
                    new KvLayout(new ModelShape("decode", ModelKind.TOY_MLA, layers, 512, 64, 128), KvDtype.FP8_E4M3));
        }

        /** {@return pages a rank sends} */
        int share() {
            return pages / ranks;
        }

        /** {@return the bytes every rank's share holds together} */
        long bytes() {
            return (long) share() * ranks * layers * (layout.mlaPageBytes(PS) + layout.indexPageBytes(PS));
        }

        /** {@return a transfer backend's run shape for it} */
        RunShape shape() {
            return new RunShape(PS, ranks, layout);
        }

        /** Each rank's store, made by {@code make} (rank, label), filled with seeded random bytes. */
        List<PageStore> owners(BiFunction<Integer, String, PageStore> make) {
            List<PageStore> owners = new ArrayList<>();
            SplittableRandom rnd = new SplittableRandom(11);
            for (int r = 0; r < ranks; r++) {
                PageStore store = make.apply(r, "rank " + r);
                for (KvComponent c : KvComponent.values()) {
                    for (int l = 0; l < layers; l++) {
                        byte[] bytes = new byte[share() * store.pageBytes(c)];
                        rnd.nextBytes(bytes);
                        store.writeBytes(l, c, 0, bytes);
                    }
                }
                owners.add(store);
            }
            return owners;
        }
    }

    /** One timed send: the whole of it, first send to last COMPLETE, and the part after its last page landed. */
    record Sent(double ms, double afterLastPageMs) {}

    /**
     * Every rank sends its share of request {@code id} (its store's pages {@code 0 .. share-1}) on
     * its own connection at once, then every rank completes; the request is released after.
     */
    static Sent send(TcpTransferBackend backend, String id, List<PageStore> owners, int share) {
        int ranks = owners.size();
        long[] d = backend.open(id, share * ranks, ranks).block();
        long t0 = System.nanoTime();
        Flux.range(0, ranks).flatMap(r -> backend.send(id, r, new PageRun(0, d[r * share], share), owners.get(r)), ranks).blockLast();
        long landed = System.nanoTime();
        Flux.range(0, ranks).flatMap(r -> backend.complete(id, r), ranks).blockLast();
        long ready = System.nanoTime();
        backend.release(id).block();
        return new Sent((ready - t0) / 1e6, (ready - landed) / 1e6);
    }

    /** Starts {@code main} ({@code DecodeServerMain} or an engine's) with a 12 GiB heap over a pool with room for {@code request}. */
    static DecodeServerProcess start(Class<?> main, Request request) throws java.io.IOException {
        return start(main, request, Map.of());
    }

    /** The same, with system properties for the child (e.g. its pool's device). */
    static DecodeServerProcess start(Class<?> main, Request request, Map<String, String> properties) throws java.io.IOException {
        return DecodeServerProcess.start(main, "12g", properties, 0, request.pages() + 1, PS, request.layout());
    }
}

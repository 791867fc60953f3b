package org.kvflow.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import jcuda.driver.CUdeviceptr;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.RunShape;
import org.kvflow.transport.cudaipc.CudaIpcDecodeServerMain;
import org.kvflow.transport.cudaipc.CudaIpcTarget;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.PageCrcs;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;
import reactor.core.publisher.Flux;

/**
 * A CP shared-KV request's pages, held by the CP ranks' pools in GPU memory, sent to decode
 * processes on this GPU's host, each rank its share on its own connection at once: by the
 * {@code cuda-ipc} engine into a decode pool in GPU memory (one copy launch a run, CRC32C on the GPU
 * on both sides), by the {@code tcp} engine into a decode pool on the heap (the pages read to the
 * host and sent in frames), and, as the baseline, one {@code cuMemcpyDtoD} of the same bytes on raw
 * buffers, all in one run. DeepSeek V3.2's fp8 widths, page 64. A send runs from the first rank's
 * send to the last rank's COMPLETE; {@code ready_after_last_page_ms} is the part after the last
 * page landed (the COMPLETEs). Also: one rank's pages checksummed on the GPU alone. One JSON
 * object per line. Usage: {@code CudaIpcTransferBench [pages 2048] [layers 61] [ranks 8] [runs 3]}.
 */
public final class CudaIpcTransferBench {
    private static final int PS = 64;

    private CudaIpcTransferBench() {}

    /** One timed send: the whole of it and the part after its last page. */
    private record Sent(double ms, double afterLastPageMs) {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("CudaIpcTransferBench");
        int pages = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int layers = args.length > 1 ? Integer.parseInt(args[1]) : 61;
        int ranks = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        KvLayout layout = new KvLayout(new ModelShape("decode", ModelKind.TOY_MLA, layers, 512, 64, 128), KvDtype.FP8_E4M3);
        int share = pages / ranks;
        try (CudaBench gpu = CudaBench.open(0)) {
            List<PageStore> owners = new ArrayList<>();
            SplittableRandom rnd = new SplittableRandom(11);
            for (int r = 0; r < ranks; r++) {
                PageStore store = PageStore.allocate(gpu.memory(), "rank " + r, layout, PS, share);
                for (KvComponent c : KvComponent.values()) {
                    for (int l = 0; l < layers; l++) {
                        byte[] bytes = new byte[share * store.pageBytes(c)];
                        rnd.nextBytes(bytes);
                        store.writeBytes(l, c, 0, bytes);
                    }
                }
                owners.add(store);
            }
            long pageBytes = (long) layers * (layout.mlaPageBytes(PS) + layout.indexPageBytes(PS));
            long bytes = (long) share * ranks * pageBytes;
            CUdeviceptr from = gpu.baseline().deviceBytes(bytes);
            CUdeviceptr to = gpu.baseline().deviceBytes(bytes);
            long[] all = new long[share];
            Arrays.setAll(all, i -> i);
            RunShape shape = new RunShape(PS, ranks, layout);
            Process ipc = DecodeProcesses.start(CudaIpcDecodeServerMain.class, pages + 1, PS, layout);
            Process tcp = DecodeProcesses.start(DecodeServerMain.class, pages + 1, PS, layout);
            try (TcpTransferBackend byIpc = (TcpTransferBackend) CudaIpcTarget.of("127.0.0.1", DecodeProcesses.port(ipc)).timeout(Duration.ofMinutes(2)).open(shape);
                 TcpTransferBackend byTcp = (TcpTransferBackend) TcpTarget.of("127.0.0.1", DecodeProcesses.port(tcp)).timeout(Duration.ofMinutes(2)).open(shape)) {
                for (int run = 0; run <= runs; run++) { // run 0 warms every path up
                    Sent viaIpc = send(byIpc, "ipc-" + run, owners, share);
                    Sent viaTcp = send(byTcp, "tcp-" + run, owners, share);
                    float dtod = gpu.baseline().timeMillis(() -> gpu.baseline().copy(to, from, bytes));
                    long t0 = System.nanoTime();
                    PageCrcs.of(owners.get(0), all);
                    double crcMs = (System.nanoTime() - t0) / 1e6;
                    if (run > 0) {
                        System.out.printf(Locale.ROOT, "{\"name\":\"cuda_ipc_transfer\",\"run\":%d,\"bytes\":%d,\"cuda_ipc_ms\":%.2f,\"tcp_ms\":%.1f,"
                                        + "\"dtod_ms\":%.3f,\"cuda_ipc_gbps\":%.1f,\"dtod_gbps\":%.1f,\"cuda_ipc_vs_dtod\":%.3f,\"cuda_ipc_over_tcp_backend\":%.1f,"
                                        + "\"cuda_ipc_ready_after_last_page_ms\":%.2f,\"tcp_ready_after_last_page_ms\":%.2f,\"crc_one_rank_ms\":%.2f}%n",
                                run, bytes, viaIpc.ms(), viaTcp.ms(), dtod, bytes / (viaIpc.ms() * 1e6), bytes / (dtod * 1e6), dtod / viaIpc.ms(),
                                viaTcp.ms() / viaIpc.ms(), viaIpc.afterLastPageMs(), viaTcp.afterLastPageMs(), crcMs);
                    }
                }
            } finally {
                ipc.destroyForcibly();
                tcp.destroyForcibly();
            }
        }
    }

    /** Every rank sends its share of request {@code id} on its own connection at once, then every rank completes; released after. */
    private static Sent send(TcpTransferBackend backend, String id, List<PageStore> owners, int share) {
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

}

package org.kvflow.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jcuda.driver.CUdeviceptr;
import org.kvflow.core.DebugMode;
import org.kvflow.cuda.CudaDevice;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.RunShape;
import org.kvflow.transport.cudaipc.CudaIpcDecodeServerMain;
import org.kvflow.transport.cudaipc.CudaIpcTarget;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.DecodeServerProcess;
import org.kvflow.transport.tcp.PageCrcs;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;

/**
 * A CP shared-KV request's pages, held by the CP ranks' pools in GPU memory, sent to decode
 * processes on this GPU's host, each rank its share on its own connection at once: by the
 * {@code cuda-ipc} engine into a decode pool in GPU memory (one copy launch a run, CRC32C on the GPU
 * on both sides), by the {@code tcp} engine into a decode pool on the heap (the pages read to the
 * host and sent in frames), and, as the baseline, one {@code cuMemcpyDtoD} of the same bytes on raw
 * buffers, all in one run. Each rank's pool lies in a page memory of its own (a stream each, as a
 * rank process has); {@code cuda_ipc_one_stream_ms} sends the same pages from pools that share one
 * memory (one stream, the ranks' copies one at a time). DeepSeek V3.2's fp8 widths, page 64. A send
 * runs from the first rank's send to the last rank's COMPLETE; {@code ready_after_last_page_ms} is
 * the part after the last page landed (the COMPLETEs). Before the runs, cuda-ipc sends for up to 2 s
 * ({@link HostWarmup}) compile both processes' host code. Also: one rank's pages checksummed on the GPU
 * alone, the call and its kernel. One JSON object per line. Usage:
 * {@code CudaIpcTransferBench [pages 2048] [layers 61] [ranks 8] [runs 3] [decode GPU 0]}: with a
 * decode GPU other than 0, the cuda-ipc decode pool lies on that GPU (the prefill pools stay on GPU
 * 0, so every page crosses between the GPUs, as from prefill to decode GPUs of one host), and the
 * baseline copies the same bytes from GPU 0 to that GPU, peer to peer.
 */
public final class CudaIpcTransferBench {
    /** Sends before the measured ones. */
    private static final int WARMUPS = 3;

    private CudaIpcTransferBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("CudaIpcTransferBench");
        TransferRuns.Request request = TransferRuns.Request.of(args);
        int decodeGpu = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        List<CudaPageMemory> rankMemories = new ArrayList<>();
        try (CudaBench gpu = CudaBench.open(0);
             CudaBaseline decodeSide = decodeGpu == 0 ? null : new CudaBaseline(CudaDevice.open(decodeGpu))) {
            for (int r = 0; r < request.ranks(); r++) {
                rankMemories.add(new CudaPageMemory(0));
            }
            List<PageStore> owners = request.owners((r, label) -> PageStore.allocate(rankMemories.get(r), label, request.layout(), TransferRuns.PS, request.share()));
            List<PageStore> oneStream = request.owners((r, label) -> PageStore.allocate(gpu.memory(), label, request.layout(), TransferRuns.PS, request.share()));
            long bytes = request.bytes();
            CUdeviceptr from = gpu.baseline().deviceBytes(bytes);
            CUdeviceptr to;
            if (decodeSide == null) {
                to = gpu.baseline().deviceBytes(bytes);
            } else {
                gpu.baseline().reachPeer(CudaDevice.open(decodeGpu));
                to = decodeSide.deviceBytes(bytes);
            }
            long[] all = new long[request.share()];
            Arrays.setAll(all, i -> i);
            RunShape shape = request.shape();
            try (DecodeServerProcess ipc = TransferRuns.start(CudaIpcDecodeServerMain.class, request, Map.of(CudaIpcDecodeServerMain.DEVICE, "cuda:" + decodeGpu));
                 DecodeServerProcess tcp = TransferRuns.start(DecodeServerMain.class, request);
                 TcpTransferBackend byIpc = (TcpTransferBackend) CudaIpcTarget.of("127.0.0.1", ipc.port()).timeout(Duration.ofMinutes(2)).open(shape);
                 TcpTransferBackend byTcp = (TcpTransferBackend) TcpTarget.of("127.0.0.1", tcp.port()).timeout(Duration.ofMinutes(2)).open(shape)) {
                int[] warm = {0};
                // the cuda-ipc path's host code (both processes') compiled as in a long-running process, then the warm-up runs of every path
                int warmupSends = HostWarmup.run(() -> TransferRuns.send(byIpc, "warm" + warm[0]++, owners, request.share()));
                for (int run = 1 - WARMUPS; run <= request.runs(); run++) { // runs up to 0 warm every path up (the JIT compiles the hosts' loops)
                    TransferRuns.Sent viaIpc = TransferRuns.send(byIpc, "ipc" + run, owners, request.share());
                    TransferRuns.Sent viaOneStream = TransferRuns.send(byIpc, "ipc-one-stream" + run, oneStream, request.share());
                    TransferRuns.Sent viaTcp = TransferRuns.send(byTcp, "tcp" + run, owners, request.share());
                    float dtod = gpu.baseline().timeMillis(() -> gpu.baseline().copy(to, from, bytes));
                    long t0 = System.nanoTime();
                    PageCrcs.of(oneStream.get(0), all);
                    double crcMs = (System.nanoTime() - t0) / 1e6;
                    gpu.clock().timing(true);
                    PageCrcs.of(oneStream.get(0), all);
                    gpu.clock().timing(false);
                    if (run > 0) {
                        System.out.printf(Locale.ROOT, "{\"name\":\"cuda_ipc_transfer\",\"run\":%d,\"decode_gpu\":%d,\"bytes\":%d,\"cuda_ipc_ms\":%.2f,"
                                        + "\"cuda_ipc_one_stream_ms\":%.2f,\"tcp_ms\":%.1f,\"dtod_ms\":%.3f,\"cuda_ipc_gbps\":%.1f,\"dtod_gbps\":%.1f,"
                                        + "\"cuda_ipc_vs_dtod\":%.3f,\"cuda_ipc_one_stream_vs_dtod\":%.3f,\"cuda_ipc_over_tcp_backend\":%.1f,"
                                        + "\"cuda_ipc_ready_after_last_page_ms\":%.2f,\"tcp_ready_after_last_page_ms\":%.2f,\"crc_one_rank_ms\":%.2f,"
                                        + "\"crc_one_rank_kernel_ms\":%.3f,\"host_warmup_sends\":%d}%n",
                                run, decodeGpu, bytes, viaIpc.ms(), viaOneStream.ms(), viaTcp.ms(), dtod, bytes / (viaIpc.ms() * 1e6), bytes / (dtod * 1e6),
                                dtod / viaIpc.ms(), dtod / viaOneStream.ms(), viaTcp.ms() / viaIpc.ms(), viaIpc.afterLastPageMs(), viaTcp.afterLastPageMs(),
                                crcMs, gpu.clock().lastMillis(), warmupSends);
                    }
                }
            }
        } finally {
            rankMemories.forEach(CudaPageMemory::close);
        }
    }
}

package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;

/**
 * The pipeline's own materialization path on the GPU: CP ranks' pools as {@link PageStore}s in
 * device memory (DeepSeek V3.2 fp8, 61 layers, page 64, one buffer per layer and component as the
 * pipeline keeps them), a request of {@code tokens} tokens owned by page id, and its full view
 * gathered with {@code gatherFrom} from every owner in one batch, as the materialize stage does; against one
 * {@code cuMemcpyDtoD} of the same bytes, in the same run; also owner by owner (one batch each);
 * each after 200 untimed calls, so the host code is compiled as in a running pipeline. Checks sampled view pages against their
 * owners. Arguments: cp (8), tokens (131072), layers (61).
 */
public final class ViewGatherBench {
    private static final int PS = 64;
    /** Untimed calls before each timed path. */
    private static final int WARMUP = 200;

    private ViewGatherBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("ViewGatherBench");
        OwnedRequest request = OwnedRequest.fromArgs(args);
        int cp = request.cp();
        int tokens = request.tokens();
        int layers = request.layers();
        KvLayout layout = request.layout();
        int pages = request.pages();
        int perRank = request.perRank();
        OwnershipMap ownership = request.ownership();
        long[] ids = request.ids();
        long[][] src = request.src();
        long[][] dst = request.dst();
        try (CudaBench gpu = CudaBench.open(0)) {
            CudaPageMemory cuda = gpu.memory();
            List<PageStore> owners = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                owners.add(PageStore.allocate(cuda, "rank " + r, layout, PS, perRank));
            }
            PageStore view = PageStore.allocate(cuda, "full view", layout, PS, pages);
            long pageBytes = (long) layers * (view.mlaPageBytes() + view.indexPageBytes());
            long viewBytes = pages * pageBytes;
            System.out.println("{\"device\":\"" + cuda.deviceName() + "\",\"cp\":" + cp + ",\"tokens\":" + tokens + ",\"pages\":" + pages
                    + ",\"layers\":" + layers + ",\"view_bytes\":" + viewBytes + "}");
            SplittableRandom rnd = new SplittableRandom(11);
            int[] marked = new int[16];
            byte[][] marks = new byte[marked.length][];
            for (int s = 0; s < marked.length; s++) {
                marked[s] = rnd.nextInt(pages);
                marks[s] = new byte[layers * view.mlaPageBytes()];
                rnd.nextBytes(marks[s]);
                long id = ids[marked[s]];
                owners.get(ownership.owner(id)).writePage(KvComponent.MLA, ownership.localPage(id), marks[s]);
            }
            // read + write of every view byte; one batch of every owner (as the materialize stage gathers), then owner by owner
            // after 200 untimed gathers: the host code (checks, the copy table of 8 × 122 rows) JIT-compiled, as in a running pipeline
            RankLayoutBench.report(gpu, "view_from_owner_stores", 2 * viewBytes, WARMUP, () -> view.gatherFrom(owners, List.of(src), List.of(dst)));
            RankLayoutBench.report(gpu, "view_owner_by_owner", 2 * viewBytes, WARMUP, () -> {
                for (int r = 0; r < cp; r++) {
                    view.copyPagesFrom(owners.get(r), src[r], dst[r]);
                }
            });
            for (int s = 0; s < marked.length; s++) {
                if (!Arrays.equals(view.readPage(KvComponent.MLA, marked[s]), marks[s])) {
                    throw new IllegalStateException("view page " + marked[s] + " differs from its owner's page");
                }
            }
            System.out.println("{\"name\":\"check\",\"view_pages_checked\":" + marked.length + ",\"ok\":true}");
            RankLayoutBench.dtod(gpu, "memcpy_dtod_same_bytes", viewBytes);
        }
    }
}

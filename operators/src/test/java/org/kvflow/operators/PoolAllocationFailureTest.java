package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.OutOfDeviceMemoryException;
import org.kvflow.pages.PageMemory;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.group.KvGroup;

/** A device without room for every rank's pools: the group is not built, the error names the sizes, and nothing stays allocated. */
class PoolAllocationFailureTest {
    /** A heap memory that refuses its {@code refuseAt}-th allocation as a full device would, counting live buffers. */
    private static PageMemory fullAfter(int refuseAt, AtomicInteger live) {
        HeapPageMemory heap = new HeapPageMemory();
        AtomicInteger allocations = new AtomicInteger();
        return (PageMemory) Proxy.newProxyInstance(PageMemory.class.getClassLoader(), new Class<?>[] {PageMemory.class}, (proxy, method, args) -> {
            if (method.getName().equals("allocate")) {
                if (allocations.incrementAndGet() == refuseAt) {
                    long bytes = (long) args[1] * (int) args[2];
                    throw new OutOfDeviceMemoryException("cuda", args[0] + " (" + args[1] + " pages of " + args[2] + " B)", bytes, 1_000, null);
                }
                live.incrementAndGet();
            } else if (method.getName().equals("free")) {
                live.decrementAndGet();
            }
            try {
                return method.invoke(heap, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    @Test
    void theErrorNamesEveryPoolSizeAndTheRanksAlreadyAllocatedAreFreed() {
        AtomicInteger live = new AtomicInteger();
        SyntheticModel model = Workloads.toyModel(KvDtype.FP8_E4M3, 2);
        // 4 ranks × 2 layers × (mla, index): the 8th buffer is rank 1's index buffer of layer 1
        PageMemory memory = fullAfter(8, live);
        long perPage = 2 * (model.layout().mlaPageBytes(16) + model.layout().indexPageBytes(16));
        assertThatThrownBy(() -> KvGroup.builder(Workloads.sharedBsGt1(4, 16, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(32, 16))
                .model(model).memory(memory).build())
                .isInstanceOf(OutOfDeviceMemoryException.class)
                .hasMessage("page memory 'cuda' has no room for the pools of 4 CP ranks, 32 pages of 16 tokens each (" + perPage
                        + " B a page, all layers); page memory 'cuda' has no room for rank 1 index layer 1 (32 pages of "
                        + model.layout().indexPageBytes(16) + " B): " + 32 * model.layout().indexPageBytes(16) + " B asked, 1000 B free: "
                        + 4 * 32 * perPage + " B asked, 1000 B free")
                .satisfies(e -> assertThat(((OutOfDeviceMemoryException) e).askedBytes()).isEqualTo(4 * 32 * perPage));
        assertThat(live).as("rank 0's buffers and rank 1's first three are freed").hasValue(0);
    }
}

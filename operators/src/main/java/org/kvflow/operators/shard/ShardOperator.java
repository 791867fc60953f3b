package org.kvflow.operators.shard;

import java.util.Objects;
import java.util.function.Function;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.RequestState;
import reactor.core.publisher.Flux;

/**
 * Allocates each chunk's pages against the reservation admission made (SPEC §4.4): logical page
 * ids from the group's allocator, physical pages on their owners, the request's page table and
 * request-to-token row extended. A failure fails that request alone and frees its pages.
 */
public final class ShardOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    private final KvGroup group;

    public ShardOperator(KvGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        return upstream.doOnNext(this::allocate).name("kvflow.own");
    }

    private void allocate(PrefillBatch batch) {
        for (PrefillBatch.Entry entry : batch.entries()) {
            RequestState state = entry.state();
            if (state.isInactive()) {
                continue;
            }
            try {
                group.allocate(state, entry.chunkLen());
                state.countBatch();
            } catch (RuntimeException e) {
                state.fail(e);
                group.release(state, false);
            }
        }
    }
}

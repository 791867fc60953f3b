package org.kvflow.operators;

import org.kvflow.core.KvflowException;

/** contract §6.4 runtime fail-fast: a multi-request batch reached the CP shared-KV path without the bs>1 gate. */
public final class CpSharedKvBatchException extends KvflowException {
    /**
     * A batch of {@code batchSize} requests reached the path.
     *
     * @param batchSize requests in the batch that reached the shared-KV path
     */
    public CpSharedKvBatchException(int batchSize) {
        super("CP shared-KV batch size > 1 without --enable-cp-shared-kv-prefill-bs-gt1 (batch of " + batchSize + ")");
    }

    @Override
    public String code() {
        return "ADM-BATCH";
    }
}

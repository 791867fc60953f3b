package org.kvflow.core.pool;

/** How a CP group stores its persistent KV pages (contract §1, §3.4). */
public enum PoolLayout {
    /** Each logical page is stored once, on its owner rank: {@code cp·N} logical pages. */
    SHARED,
    /** Plain CP: every rank holds a full copy: {@code N} logical pages. */
    REPLICATED
}

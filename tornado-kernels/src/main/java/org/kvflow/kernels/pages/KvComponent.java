package org.kvflow.kernels.pages;

/** The two page pools of an NSA/MLA layer (SPEC §3.2, §3.3): each layer keeps one buffer of each. */
public enum KvComponent {
    /** MLA rows: the compressed latent and the rope part of each token. */
    MLA,
    /** Indexer pages: each token's fp8 index key, then the page's scale region. */
    INDEX
}

/**
 * The page-memory layer: every KV page kvflow holds lives in a {@link org.kvflow.pages.PageStore}
 * (one per CP rank, per full view, per decode instance), whose buffers belong to one
 * {@link org.kvflow.pages.PageMemory}: the Java heap here, GPU device and pinned host
 * memory in the cuda-fallback module (found by name through {@link java.util.ServiceLoader}).
 * Stages touch pages only through a store: row and page writes, page reads, and page copies
 * (gather, scatter, direct) that the memory owning the bytes performs. Every page list and byte
 * range is checked before the first byte moves.
 */
@NullMarked
package org.kvflow.pages;

import org.jspecify.annotations.NullMarked;

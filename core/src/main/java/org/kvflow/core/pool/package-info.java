/**
 * Pool capacity from a byte budget, the logical paged allocator and per-rank physical pools (contract §3.4, §3.5, §4.4). Capacity is derived here and nowhere else.
 */
@NullMarked
package org.kvflow.core.pool;

import org.jspecify.annotations.NullMarked;

/**
 * Shard ownership (contract §4): allocating each chunk's logical pages on their owner ranks, and the
 * owner-write rule of contract §4.4 that stores each computed row only on its owner.
 */
@NullMarked
package org.kvflow.operators.shard;

import org.jspecify.annotations.NullMarked;

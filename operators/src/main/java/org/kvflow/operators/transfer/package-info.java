/**
 * PD transfer (SPEC §8): the per-rank sender plan (owner filtering, logical page positions, contiguous runs), the TransferBackend SPI with its in-memory implementation, and the non-CP decode receiver.
 */
@NullMarked
package org.kvflow.operators.transfer;

import org.jspecify.annotations.NullMarked;

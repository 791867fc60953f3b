/**
 * The transfer stage: the per-rank sender plan (owner filtering, logical page positions,
 * contiguous runs) and the operator that ships each chunk through a
 * {@link org.kvflow.transfer.TransferBackend}.
 */
@NullMarked
package org.kvflow.operators.transfer;

import org.jspecify.annotations.NullMarked;

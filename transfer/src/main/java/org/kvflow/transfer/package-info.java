/**
 * The PD transfer seam: the {@link org.kvflow.transfer.TransferBackend} SPI
 * every transport implements (in-process here, TCP in transport-tcp), the page runs it ships, and
 * the in-process backend that delivers straight into a {@link org.kvflow.decode.DecodeReceiver}.
 */
@NullMarked
package org.kvflow.transfer;

import org.jspecify.annotations.NullMarked;

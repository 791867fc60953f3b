/**
 * PD transfer over TCP with reactor-netty (contract §10.2 backend {@code tcp}): a
 * {@link org.kvflow.transfer.TransferBackend} client and the decode-side server around a
 * {@link org.kvflow.decode.DecodeReceiver}. Pages travel by logical page position with a
 * CRC32C per page; the handshake refuses a decode side of another page size or KV dtype (E-PD-4).
 */
@NullMarked
package org.kvflow.transport.tcp;

import org.jspecify.annotations.NullMarked;

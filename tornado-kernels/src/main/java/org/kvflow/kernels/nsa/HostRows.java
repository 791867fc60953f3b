package org.kvflow.kernels.nsa;

/**
 * The stored bytes of {@code count} tokens on the host, as {@link RowEncoder#rows} gives them.
 *
 * @param count       how many tokens
 * @param mla         {@code count × rowBytes} latent-KV row bytes
 * @param indexCodes  {@code count × I} index fp8 codes
 * @param indexScales {@code count × ⌈I/128⌉} index scales
 */
public record HostRows(int count, byte[] mla, byte[] indexCodes, float[] indexScales) {}

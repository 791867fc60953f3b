package org.kvflow.kernels.nsa;

/** Little-endian stores and loads on byte arrays (contract §3.7: every multi-byte value is little-endian). */
final class Bytes {
    private Bytes() {}

    static void putShort(byte[] b, int off, short v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
    }

    static short getShort(byte[] b, int off) {
        return (short) ((b[off] & 0xFF) | (b[off + 1] << 8));
    }

    static void putFloat(byte[] b, int off, float v) {
        int bits = Float.floatToRawIntBits(v);
        b[off] = (byte) bits;
        b[off + 1] = (byte) (bits >>> 8);
        b[off + 2] = (byte) (bits >>> 16);
        b[off + 3] = (byte) (bits >>> 24);
    }

    static float getFloat(byte[] b, int off) {
        int bits = (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
        return Float.intBitsToFloat(bits);
    }
}

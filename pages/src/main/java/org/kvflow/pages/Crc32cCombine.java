package org.kvflow.pages;

/**
 * Joins CRC32Cs: the checksum of {@code A ‖ B} from the checksums of {@code A} and {@code B} and the
 * length of {@code B}, by polynomial arithmetic modulo the Castagnoli polynomial (the CRC register
 * is linear in the bytes, so appending {@code B} multiplies {@code A}'s register by
 * {@code x^(8·|B|)}). The Java reference of the join the GPU runs after checksumming a run's
 * pages buffer by buffer ({@link InPlaceCrcs}).
 */
public final class Crc32cCombine {
    /** The reflected Castagnoli polynomial: bit 31 stands for x^0. */
    private static final int POLY = 0x82F63B78;
    /** POWERS[k] = x^(2^k) mod p(x). */
    private static final int[] POWERS = new int[32];

    static {
        int p = 0x40000000; // x^1
        for (int k = 0; k < 32; k++) {
            POWERS[k] = p;
            p = times(p, p);
        }
    }

    private Crc32cCombine() {}

    /**
     * What a part of {@code length} bytes appended after another does to the other's checksum:
     * {@code x^(8·length)} modulo the polynomial: the checksum of {@code A ‖ B} is
     * {@code times(multiplier(|B|), crc(A)) ^ crc(B)}.
     *
     * @param length the appended part's length in bytes
     * @return the multiplier, in the reflected representation (bit 31 is {@code x^0})
     */
    public static int multiplier(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("a length of " + length + " bytes");
        }
        return zeroBytes(length);
    }

    /**
     * The product of two multipliers (what appending both parts' lengths does at once), or of a
     * multiplier and a checksum (that checksum moved past the appended bytes).
     *
     * @return {@code a(x)·b(x)} modulo the polynomial
     */
    public static int times(int a, int b) {
        int product = 0;
        for (int i = 0; i < 32; i++) {
            if ((a & (0x80000000 >>> i)) != 0) {
                product ^= b;
            }
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return product;
    }

    /** x^(8n) mod p(x): what {@code n} zero bytes do to a register. */
    private static int zeroBytes(long n) {
        int p = 0x80000000; // x^0
        for (int k = 3; n != 0; n >>>= 1, k++) {
            if ((n & 1) != 0) {
                p = times(POWERS[k & 31], p);
            }
        }
        return p;
    }
}

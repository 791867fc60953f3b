package org.kvflow.pages;

/**
 * Joins CRC32Cs: the checksum of {@code A ‖ B} from the checksums of {@code A} and {@code B} and the
 * length of {@code B}, by polynomial arithmetic modulo the Castagnoli polynomial (the CRC register
 * is linear in the bytes, so appending {@code B} multiplies {@code A}'s register by
 * {@code x^(8·|B|)}). Lets checksums computed per page and buffer ({@link InPlaceCrcs}) stand for the
 * checksum of the ranges in sequence.
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
            p = multiply(p, p);
        }
    }

    private Crc32cCombine() {}

    /**
     * @param first        the CRC32C of the first part
     * @param second       the CRC32C of the part after it
     * @param secondLength the second part's length in bytes
     * @return the CRC32C of both parts in sequence
     */
    public static int combine(int first, int second, long secondLength) {
        return appending(secondLength).combine(first, second);
    }

    /**
     * The join for second parts of {@code length} bytes, its multiplier worked out once: what joins
     * many parts of a few lengths (a page's layers) costs one multiplication each.
     *
     * @param length the second parts' length in bytes
     * @return the join
     */
    public static Appending appending(long length) {
        if (length < 0) {
            throw new IllegalArgumentException("a length of " + length + " bytes");
        }
        int multiplier = zeroBytes(length);
        int[] table = new int[4 * 256];
        for (int k = 0; k < 4; k++) {
            for (int v = 0; v < 256; v++) {
                table[k * 256 + v] = multiply(multiplier, v << (8 * k));
            }
        }
        return new Appending(table);
    }

    /**
     * Joins a checksum with that of a part of one fixed length after it. The product with the
     * length's multiplier is linear in the checksum, so it is four lookups, one a byte.
     */
    public static final class Appending {
        /** Entry {@code k·256 + v}: the multiplier times byte {@code v} at byte position {@code k}. */
        private final int[] table;

        private Appending(int[] table) {
            this.table = table;
        }

        /** {@return the CRC32C of the first part followed by the second, given theirs} */
        public int combine(int first, int second) {
            return table[first & 0xFF] ^ table[256 + ((first >>> 8) & 0xFF)] ^ table[512 + ((first >>> 16) & 0xFF)] ^ table[768 + (first >>> 24)]
                    ^ second;
        }
    }

    /** a(x)·b(x) mod p(x). */
    private static int multiply(int a, int b) {
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
                p = multiply(POWERS[k & 31], p);
            }
        }
        return p;
    }
}

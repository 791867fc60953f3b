package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cCombineTest {
    private static int crc(byte[] bytes, int from, int to) {
        CRC32C c = new CRC32C();
        c.update(bytes, from, to - from);
        return (int) c.getValue();
    }

    @Test
    void twoPartsJoinToTheWholesChecksumAtEverySplit() {
        Random random = new Random(2026);
        for (int trial = 0; trial < 300; trial++) {
            byte[] bytes = new byte[random.nextInt(5000)];
            random.nextBytes(bytes);
            int split = bytes.length == 0 ? 0 : random.nextInt(bytes.length + 1);
            int joined = Crc32cCombine.times(Crc32cCombine.multiplier(bytes.length - split), crc(bytes, 0, split)) ^ crc(bytes, split, bytes.length);
            assertThat(joined).as("%d bytes split at %d", bytes.length, split).isEqualTo(crc(bytes, 0, bytes.length));
        }
    }

    @Test
    void manyPartsJoinInSequenceAsAPagesLayersDo() {
        Random random = new Random(7);
        byte[] bytes = new byte[41_984 * 3 + 8_448 * 3];
        random.nextBytes(bytes);
        int[] cuts = {0, 41_984, 83_968, 125_952, 134_400, 142_848, bytes.length};
        int joined = crc(bytes, 0, 0);
        for (int i = 0; i + 1 < cuts.length; i++) {
            joined = Crc32cCombine.times(Crc32cCombine.multiplier(cuts[i + 1] - cuts[i]), joined) ^ crc(bytes, cuts[i], cuts[i + 1]);
        }
        assertThat(joined).isEqualTo(crc(bytes, 0, bytes.length));
    }

    @Test
    void joiningInTurnEqualsEachPartTimesWhatFollowsItAsTheGpuSumsThem() {
        Random random = new Random(11);
        int[] lengths = {41_984, 41_984, 8_448, 1_001, 8_448, 0, 5};
        byte[][] parts = new byte[lengths.length][];
        java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < parts.length; i++) {
            parts[i] = new byte[lengths[i]];
            random.nextBytes(parts[i]);
            whole.writeBytes(parts[i]);
        }
        int sum = 0;
        int after = 0x80000000; // x^0
        for (int i = parts.length - 1; i >= 0; i--) {
            sum ^= Crc32cCombine.times(after, crc(parts[i], 0, lengths[i]));
            after = Crc32cCombine.times(after, Crc32cCombine.multiplier(lengths[i]));
        }
        byte[] all = whole.toByteArray();
        assertThat(sum).isEqualTo(crc(all, 0, all.length));
    }

    @Test
    void aNegativeLengthIsRefused() {
        assertThatThrownBy(() -> Crc32cCombine.multiplier(-3)).isInstanceOf(IllegalArgumentException.class).hasMessage("a length of -3 bytes");
    }
}

package org.kvflow.transport.ucx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A UCX landing's description comes from the decode server over the wire: what it holds survives
 * the trip, and bytes that do not describe a landing are refused by name, each case by its exact
 * message, before anything is allocated for them.
 */
class LandingDescriptionTest {
    private static final LandingDescription TWO = new LandingDescription(new byte[] {1, 2, 3},
            List.of(new LandingDescription.Region(0x7000_0000L, 4096, new byte[] {9, 9}), new LandingDescription.Region(0x7100_0000L, 1024, new byte[] {8})));

    @Test
    void aDescriptionSurvivesItsBytes() {
        LandingDescription back = LandingDescription.parse(TWO.bytes());
        assertThat(back.worker()).containsExactly(1, 2, 3);
        assertThat(back.buffers()).hasSize(2);
        assertThat(back.buffers().get(1).address()).isEqualTo(0x7100_0000L);
        assertThat(back.buffers().get(1).length()).isEqualTo(1024);
        assertThat(back.buffers().get(0).key()).containsExactly(9, 9);
    }

    @Test
    void bytesCutShortOrWithMoreAfterTheBuffersAreRefused() {
        byte[] bytes = TWO.bytes();
        assertThatThrownBy(() -> LandingDescription.parse(Arrays.copyOf(bytes, 10))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a UCX landing description cut short (10 bytes)");
        assertThatThrownBy(() -> LandingDescription.parse(Arrays.copyOf(bytes, bytes.length + 2))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("2 bytes after the UCX landing's 2 buffers");
    }

    @Test
    void aBufferCountOrLengthNoPoolHasIsRefused() {
        ByteBuffer many = ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).putInt(1).put((byte) 1).putInt(LandingDescription.MAX_BUFFERS + 1);
        assertThatThrownBy(() -> LandingDescription.parse(many.array())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a UCX landing of 8193 buffers (at most 8192)");
        ByteBuffer negative = ByteBuffer.allocate(9).order(ByteOrder.LITTLE_ENDIAN).putInt(1).put((byte) 1).putInt(-1);
        assertThatThrownBy(() -> LandingDescription.parse(negative.array())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a UCX landing of -1 buffers (at most 8192)");
        byte[] bytes = TWO.bytes();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(4 + 3 + 4 + 8, -4096); // the first buffer's length
        assertThatThrownBy(() -> LandingDescription.parse(bytes)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("buffer 0 of a UCX landing has length -4096");
    }

    @Test
    void aRemoteKeyLongerThanWhatIsLeftIsRefusedNamingItsBuffer() {
        byte[] bytes = TWO.bytes();
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(4 + 3 + 4 + 16 + 4 + 2 + 16, 1000); // the second buffer's key length
        assertThatThrownBy(() -> LandingDescription.parse(bytes)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UCX landing's remote key of buffer 1 of 1000 bytes (at most 65536, 1 left)");
    }

    @Test
    void aDescriptionAtItsLimitsIsTakenAndOnePastThemIsRefused() {
        LandingDescription none = LandingDescription.parse(new LandingDescription(new byte[0], List.of()).bytes());
        assertThat(none.worker()).as("an empty worker address").isEmpty();
        assertThat(none.buffers()).as("no buffers").isEmpty();
        LandingDescription.Region edge = LandingDescription.parse(new LandingDescription(new byte[] {1},
                List.of(new LandingDescription.Region(0, 0, new byte[LandingDescription.MAX_BLOB]))).bytes()).buffers().get(0);
        assertThat(edge.length()).as("a buffer of no bytes").isZero();
        assertThat(edge.key()).as("the longest remote key").hasSize(65536);
        List<LandingDescription.Region> most = java.util.Collections.nCopies(LandingDescription.MAX_BUFFERS, new LandingDescription.Region(1, 64, new byte[0]));
        assertThat(LandingDescription.parse(new LandingDescription(new byte[] {1}, most).bytes()).buffers()).hasSize(8192);
        assertThatThrownBy(() -> LandingDescription.parse(new LandingDescription(new byte[] {1},
                List.of(new LandingDescription.Region(0, 0, new byte[LandingDescription.MAX_BLOB + 1]))).bytes())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UCX landing's remote key of buffer 0 of 65537 bytes (at most 65536, 65537 left)");
    }
}

package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A shared-allocation handle travels as 24 bytes and is never mistaken for a 64-byte CUDA IPC handle,
 * which travels as its own 64 bytes (no GPU needed).
 */
class SharedHandleTest {
    @Test
    void aHandleRoundTripsAndOthersAreRefusedByName() {
        byte[] bytes = SharedHandle.encode(4242L, 17, 14_680_064L);
        assertThat(bytes).hasSize(24);
        assertThat(SharedHandle.is(bytes)).isTrue();
        assertThat(SharedHandle.decode(bytes)).isEqualTo(new SharedHandle(4242L, 17, 14_680_064L));
        byte[] ipc = new byte[64];
        assertThat(SharedHandle.is(ipc)).isFalse();
        assertThatThrownBy(() -> SharedHandle.decode(ipc)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a shared-allocation handle has 24 bytes starting with KVM1, not 64 bytes");
        byte[] wrongMagic = bytes.clone();
        wrongMagic[0] ^= 1;
        assertThat(SharedHandle.is(wrongMagic)).isFalse();
    }

    @Test
    void aCudaIpcHandleRoundTripsItsSixtyFourBytesAndOtherLengthsAreRefused() {
        byte[] bytes = new byte[IpcHandles.BYTES];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (3 * i + 1);
        }
        assertThat(IpcHandles.bytes(IpcHandles.of(bytes))).containsExactly(bytes);
        assertThatThrownBy(() -> IpcHandles.of(new byte[24])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a CUDA IPC handle has 64 bytes, not 24");
    }
}

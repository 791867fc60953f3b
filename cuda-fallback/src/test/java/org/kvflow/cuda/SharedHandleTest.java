package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A shared-allocation handle travels as 24 bytes and is never mistaken for a 64-byte CUDA IPC handle (no GPU needed). */
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
}

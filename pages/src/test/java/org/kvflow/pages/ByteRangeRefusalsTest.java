package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every byte-addressed call of each host memory refuses a range that leaves its buffer, by the
 * same typed error and message, before it moves a byte: the buffer, the caller's array or buffer
 * and the checksum stay as they were.
 */
class ByteRangeRefusalsTest {
    static Stream<Arguments> memories() {
        return Stream.of(Arguments.of("heap", (Supplier<PageMemory>) HeapPageMemory::new),
                Arguments.of("native", (Supplier<PageMemory>) NativePageMemory::new));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("memories")
    void everyCallRefusesARangeOutsideItsBufferAndMovesNothing(String name, Supplier<PageMemory> memories) {
        try (PageMemory memory = memories.get()) {
            PageBuffer b = memory.allocate("pool", 2, 4); // bytes [0, 8)
            byte[] content = {1, 2, 3, 4, 5, 6, 7, 8};
            memory.write(b, 0, content, 0, 8);

            byte[] into = {9, 9, 9};
            refused(() -> memory.read(b, 6, 3, into, 0), "pool: bytes [6, 9) lie outside [0, 8)");
            refused(() -> memory.read(b, -1, 1, into, 0), "pool: bytes [-1, 0) lie outside [0, 8)");
            assertThat(into).as("the array read into").containsExactly(9, 9, 9);

            ByteBuffer buffer = ByteBuffer.allocate(2);
            refused(() -> memory.read(b, 7, buffer), "pool: bytes [7, 9) lie outside [0, 8)");
            assertThat(buffer.position()).as("the buffer read into").isZero();

            refused(() -> memory.write(b, 5, new byte[4], 0, 4), "pool: bytes [5, 9) lie outside [0, 8)");
            ByteBuffer from = ByteBuffer.wrap(new byte[] {0, 0, 0});
            refused(() -> memory.write(b, 6, from), "pool: bytes [6, 9) lie outside [0, 8)");
            assertThat(from.position()).as("the buffer written from").isZero();

            refused(() -> memory.hostView(b, 4, 5), "pool: bytes [4, 9) lie outside [0, 8)");

            CRC32C crc = new CRC32C();
            refused(() -> memory.checksum(b, 1, 8, crc), "pool: bytes [1, 9) lie outside [0, 8)");
            assertThat(crc.getValue()).as("nothing fed to the checksum").isEqualTo(new CRC32C().getValue());

            byte[] after = new byte[8];
            memory.read(b, 0, 8, after, 0);
            assertThat(after).as("the buffer").containsExactly(content);
            assertThat(memory.hostView(b, 4, 4).get(3)).as("a range to the last byte is served").isEqualTo((byte) 8);
        }
    }

    private static void refused(ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(ByteRangeException.class).hasMessage(message);
    }
}

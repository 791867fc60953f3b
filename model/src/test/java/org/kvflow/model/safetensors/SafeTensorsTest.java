package org.kvflow.model.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading safetensors files: the dtypes converted to floats, and every kind of bad file refused naming the file and the tensor. */
class SafeTensorsTest {
    @TempDir
    Path dir;

    /** A file of {@code header} (JSON) and {@code payload}, with the header length as written or {@code lengthOverride}. */
    private Path file(String header, byte[] payload, long lengthOverride) throws IOException {
        byte[] json = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + json.length + payload.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(lengthOverride >= 0 ? lengthOverride : json.length).put(json).put(payload);
        Path f = dir.resolve("w.safetensors");
        Files.write(f, b.array());
        return f;
    }

    private Path file(String header, byte[] payload) throws IOException {
        return file(header, payload, -1);
    }

    private static byte[] floats(float... v) {
        ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float x : v) {
            b.putFloat(x);
        }
        return b.array();
    }

    @Test
    void f32Bf16F16AndFp8AreReadAsFloats() throws IOException {
        ByteBuffer p = ByteBuffer.allocate(8 + 4 + 4 + 2).order(ByteOrder.LITTLE_ENDIAN);
        p.putFloat(1.5f).putFloat(-2f);                                      // F32 [2]
        p.putShort((short) (Float.floatToIntBits(3f) >>> 16)).putShort((short) (Float.floatToIntBits(-0.5f) >>> 16)); // BF16 [2]
        p.putShort(Float.floatToFloat16(0.25f)).putShort(Float.floatToFloat16(7f));                                // F16 [2]
        p.put((byte) 0x38).put((byte) 0xB8);                                  // F8_E4M3 [2]: 1.0, -1.0
        Path f = file("{\"__metadata__\":{\"format\":\"pt\"},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[1,2],\"data_offsets\":[8,12]},"
                + "\"c\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[12,16]},"
                + "\"d\":{\"dtype\":\"F8_E4M3\",\"shape\":[2],\"data_offsets\":[16,18]}}", p.array());
        try (SafeTensors st = SafeTensors.open(f)) {
            assertThat(st.tensors()).containsOnlyKeys("a", "b", "c", "d");
            assertThat(st.floats("a", 2)).containsExactly(1.5f, -2f);
            assertThat(st.floats("b", 1, 2)).containsExactly(3f, -0.5f);
            assertThat(st.floats("c", 2)).containsExactly(0.25f, 7f);
            assertThat(st.floats("d", 2)).containsExactly(1f, -1f);
        }
    }

    @Test
    void aMissingTensorAWrongShapeAndAWrongDtypeNameTheTensor() throws IOException {
        Path f = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                + "\"ids\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[16,20]}}", floats(1, 2, 3, 4, 5));
        try (SafeTensors st = SafeTensors.open(f)) {
            assertThatThrownBy(() -> st.floats("model.layers.0.self_attn.q_a_proj.weight", 2, 2)).isInstanceOf(SafeTensorsException.class)
                    .hasMessage(f + ": tensor model.layers.0.self_attn.q_a_proj.weight is missing");
            assertThatThrownBy(() -> st.floats("w", 4, 1)).isInstanceOf(SafeTensorsException.class)
                    .hasMessage(f + ": tensor w has shape [2, 2], expected [4, 1]");
            assertThatThrownBy(() -> st.floats("ids", 1)).isInstanceOf(SafeTensorsException.class)
                    .hasMessage(f + ": tensor ids has dtype I32, expected one of F32, BF16, F16, F8_E4M3");
            assertThat(st.floats("w", 2, 2)).containsExactly(1, 2, 3, 4);
        }
    }

    @Test
    void aTruncatedPayloadNamesTheTensorWhoseBytesAreMissing() throws IOException {
        Path f = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", floats(1, 2, 3));
        assertThatThrownBy(() -> SafeTensors.open(f)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(f + ": tensor w: bytes [0, 16) past the payload's 12 (truncated file?)");
    }

    @Test
    void aHeaderLengthPastTheFileIsRefused() throws IOException {
        refusesHeaderLength("{}", 1_000_000, "header length 1000000 outside [2, 2]: the file has 10 bytes, 8 of them the length");
        refusesHeaderLength("{}", 3, "header length 3 outside [2, 2]: the file has 10 bytes, 8 of them the length");
        refusesHeaderLength("{}", 1, "header length 1 outside [2, 2]: the file has 10 bytes, 8 of them the length");
        refusesHeaderLength("", 0, "header length 0 outside [2, 0]: the file has 8 bytes, 8 of them the length");
        try (SafeTensors empty = SafeTensors.open(file("{}", new byte[0]))) {
            assertThat(empty.tensors()).as("a header that fills the file exactly, and no tensors").isEmpty();
        }
        Path tiny = dir.resolve("tiny");
        Files.write(tiny, new byte[3]);
        assertThatThrownBy(() -> SafeTensors.open(tiny)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(tiny + ": 3 bytes, too short for the 8-byte header length");
    }

    /** A file of {@code header} whose length prefix says {@code declared} is refused with {@code why} after its path. */
    private void refusesHeaderLength(String header, long declared, String why) throws IOException {
        Path f = file(header, new byte[0], declared);
        assertThatThrownBy(() -> SafeTensors.open(f)).isInstanceOf(SafeTensorsException.class).hasMessage(f + ": " + why);
    }

    @Test
    void aHeaderThatIsNotJsonOrAnEntryWhoseSizeDisagreesWithItsShapeIsRefused() throws IOException {
        Path notJson = file("{oops", new byte[0]);
        assertThatThrownBy(() -> SafeTensors.open(notJson)).isInstanceOf(SafeTensorsException.class)
                .hasMessageStartingWith(notJson + ": the header is not JSON: ");
        Path size = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", floats(1, 2));
        assertThatThrownBy(() -> SafeTensors.open(size)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(size + ": tensor w: F32 [3] needs 12 bytes, data_offsets give 8");
        Path offset = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[4,12]}}", floats(1, 2, 3));
        assertThatThrownBy(() -> SafeTensors.open(offset)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(offset + ": tensor w: F32 [3] needs 12 bytes, data_offsets give 8");
        Path backwards = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,3]}}", floats(1));
        assertThatThrownBy(() -> SafeTensors.open(backwards)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(backwards + ": tensor w: data_offsets [4,3] are not a range");
        Path negative = file("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,-1],\"data_offsets\":[0,0]}}", new byte[0]);
        assertThatThrownBy(() -> SafeTensors.open(negative)).isInstanceOf(SafeTensorsException.class)
                .hasMessage(negative + ": tensor w: shape [2,-1] has a negative or non-integer dimension");
        try (SafeTensors empty = SafeTensors.open(file("{\"w\":{\"dtype\":\"F32\",\"shape\":[2,0],\"data_offsets\":[4,4]}}", floats(1)))) {
            assertThat(empty.tensors().get("w").elements()).as("a dimension of 0 and an empty range are a tensor of nothing").isZero();
        }
        Path noDtype = file("{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", floats(1));
        assertThatThrownBy(() -> SafeTensors.open(noDtype)).isInstanceOf(SafeTensorsException.class)
                .hasMessageStartingWith(noDtype + ": tensor w: an entry needs dtype, shape and two data_offsets");
    }
}

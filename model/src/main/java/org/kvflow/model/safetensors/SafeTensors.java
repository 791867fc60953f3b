package org.kvflow.model.safetensors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import org.kvflow.kernels.quant.Fp8E4m3;

/**
 * A safetensors file, memory-mapped: an 8-byte little-endian header length, a JSON header naming
 * each tensor's dtype, shape and byte range, then the raw little-endian payload. The header is
 * checked when the file opens (every range inside the payload, sizes matching shapes); tensors are
 * read on demand, converted to floats from {@code F32}, {@code BF16}, {@code F16} or
 * {@code F8_E4M3}. Thread-safe for reads; close to unmap.
 */
public final class SafeTensors implements AutoCloseable {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final Map<String, Integer> ELEMENT_BYTES = Map.of("F64", 8, "F32", 4, "BF16", 2, "F16", 2, "F8_E4M3", 1,
            "F8_E5M2", 1, "I64", 8, "I32", 4, "I8", 1, "U8", 1);

    private final Path file;
    private final Arena arena;
    private final MemorySegment payload;
    private final Map<String, TensorInfo> tensors;

    private SafeTensors(Path file, Arena arena, MemorySegment payload, Map<String, TensorInfo> tensors) {
        this.file = file;
        this.arena = arena;
        this.payload = payload;
        this.tensors = tensors;
    }

    /**
     * Maps {@code file} and checks its header.
     *
     * @param file a safetensors file
     * @return the open file
     * @throws SafeTensorsException naming the file and what is wrong: unreadable, a header length outside the file (or under the 2 bytes of {@code {}}), a header
     *                              that is not JSON, or a tensor (by name) whose entry is malformed or whose bytes are not all there
     */
    public static SafeTensors open(Path file) {
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < 8) {
                throw new SafeTensorsException(file + ": " + size + " bytes, too short for the 8-byte header length");
            }
            MemorySegment all = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            long headerLength = all.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
            if (headerLength < 2 || headerLength > size - 8) {
                throw new SafeTensorsException(file + ": header length " + headerLength + " outside [2, " + (size - 8) + "]: the file has "
                        + size + " bytes, 8 of them the length");
            }
            byte[] header = all.asSlice(8, headerLength).toArray(ValueLayout.JAVA_BYTE);
            MemorySegment payload = all.asSlice(8 + headerLength);
            return new SafeTensors(file, arena, payload, parse(file, header, payload.byteSize()));
        } catch (IOException e) {
            arena.close();
            throw new SafeTensorsException(file + ": cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static Map<String, TensorInfo> parse(Path file, byte[] header, long payloadBytes) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(header);
        } catch (IOException e) {
            throw new SafeTensorsException(file + ": the header is not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new SafeTensorsException(file + ": the header is not a JSON object");
        }
        Map<String, TensorInfo> tensors = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getKey().equals("__metadata__")) {
                TensorInfo info = entry(file, e.getKey(), e.getValue());
                if (info.end() > payloadBytes) {
                    throw new SafeTensorsException(file + ": tensor " + info.name() + ": bytes [" + info.begin() + ", " + info.end()
                            + ") past the payload's " + payloadBytes + " (truncated file?)");
                }
                tensors.put(info.name(), info);
            }
        }
        return Collections.unmodifiableMap(tensors);
    }

    private static TensorInfo entry(Path file, String name, JsonNode node) {
        String where = file + ": tensor " + name + ": ";
        JsonNode dtype = node.get("dtype");
        JsonNode shape = node.get("shape");
        JsonNode offsets = node.get("data_offsets");
        if (dtype == null || !dtype.isTextual() || shape == null || !shape.isArray() || offsets == null || !offsets.isArray()
                || offsets.size() != 2) {
            throw new SafeTensorsException(where + "an entry needs dtype, shape and two data_offsets: " + node);
        }
        long[] dims = new long[shape.size()];
        for (int i = 0; i < dims.length; i++) {
            dims[i] = shape.get(i).asLong(-1);
            if (dims[i] < 0) {
                throw new SafeTensorsException(where + "shape " + shape + " has a negative or non-integer dimension");
            }
        }
        long begin = offsets.get(0).asLong(-1);
        long end = offsets.get(1).asLong(-1);
        if (begin < 0 || end < begin) {
            throw new SafeTensorsException(where + "data_offsets " + offsets + " are not a range");
        }
        TensorInfo info = new TensorInfo(name, dtype.asText(), dims, begin, end);
        Integer bytes = ELEMENT_BYTES.get(info.dtype());
        if (bytes != null && info.elements() * bytes != end - begin) {
            throw new SafeTensorsException(where + info.dtype() + " " + info.shapeText() + " needs " + info.elements() * bytes
                    + " bytes, data_offsets give " + (end - begin));
        }
        return info;
    }

    /** {@return the file} */
    public Path file() {
        return file;
    }

    /** {@return every tensor's entry, by name} */
    public Map<String, TensorInfo> tensors() {
        return tensors;
    }

    /**
     * The entry of {@code name}, which must have {@code shape}.
     *
     * @param name  the tensor
     * @param shape the shape it must have
     * @return its entry
     * @throws SafeTensorsException naming the tensor if it is missing or has another shape
     */
    public TensorInfo require(String name, long... shape) {
        TensorInfo info = tensors.get(name);
        if (info == null) {
            throw new SafeTensorsException(file + ": tensor " + name + " is missing");
        }
        if (!Arrays.equals(info.shape(), shape)) {
            throw new SafeTensorsException(file + ": tensor " + name + " has shape " + info.shapeText() + ", expected " + Arrays.toString(shape));
        }
        return info;
    }

    /**
     * The tensor {@code name} of {@code shape} as floats, row-major.
     *
     * @param name  the tensor
     * @param shape the shape it must have
     * @return its elements converted to float
     * @throws SafeTensorsException naming the tensor if it is missing, has another shape or a dtype that is not a float type
     */
    public float[] floats(String name, long... shape) {
        TensorInfo info = require(name, shape);
        int n = Math.toIntExact(info.elements());
        MemorySegment bytes = payload.asSlice(info.begin(), info.end() - info.begin());
        float[] out = new float[n];
        switch (info.dtype()) {
            case "F32" -> MemorySegment.copy(bytes, F32, 0, out, 0, n);
            case "BF16" -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Float.intBitsToFloat((bytes.getAtIndex(I16, i) & 0xFFFF) << 16);
                }
            }
            case "F16" -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Float.float16ToFloat(bytes.getAtIndex(I16, i));
                }
            }
            case "F8_E4M3" -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Fp8E4m3.decode(bytes.get(ValueLayout.JAVA_BYTE, i));
                }
            }
            default -> throw new SafeTensorsException(file + ": tensor " + name + " has dtype " + info.dtype()
                    + ", expected one of F32, BF16, F16, F8_E4M3");
        }
        return out;
    }

    /** Unmaps the file. */
    @Override
    public void close() {
        arena.close();
    }
}

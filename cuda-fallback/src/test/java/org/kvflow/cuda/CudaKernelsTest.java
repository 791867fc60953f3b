package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The kernels travel as resources: a fatbin with sm_90 code and the PTX beside it. Runs anywhere. */
class CudaKernelsTest {
    @ParameterizedTest
    @EnumSource(CudaKernels.class)
    void fatbinIsPresentAndLooksLikeOne(CudaKernels kernel) {
        byte[] fatbin = kernel.fatbin();
        assertThat(fatbin.length).isGreaterThan(1000);
        int magic = ByteBuffer.wrap(fatbin).order(ByteOrder.LITTLE_ENDIAN).getInt();
        assertThat(Integer.toHexString(magic)).isEqualTo("ba55ed50"); // fatbin container magic
    }

    @ParameterizedTest
    @EnumSource(CudaKernels.class)
    void ptxDeclaresTheEntryForSm90WithItsParameters(CudaKernels kernel) {
        byte[] ptx = kernel.ptx();
        assertThat(ptx[ptx.length - 1]).as("NUL-terminated for the driver").isZero();
        String text = new String(ptx, 0, ptx.length - 1, StandardCharsets.US_ASCII);
        assertThat(text).contains(".version ").contains(".target sm_90").contains(".address_size 64")
                .contains(".visible .entry " + kernel.entry() + "(");
        String params = text.substring(text.indexOf(".entry " + kernel.entry()), text.indexOf(")", text.indexOf(".entry " + kernel.entry())));
        assertThat(params.split("\\.param").length - 1).isEqualTo(kernel.parameters());
    }
}

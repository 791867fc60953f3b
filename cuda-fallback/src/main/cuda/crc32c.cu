// CRC32C (Castagnoli: reflected polynomial 0x82F63B78, register preset to all ones, result
// inverted, as java.util.zip.CRC32C computes it) of byte ranges in device memory, so that a page
// check need not copy pages to the host. One warp a range: each lane runs the plain CRC register
// (preset 0, no inversion) over its 1/32 of the range four bytes a step (slicing by 4, tables in
// shared memory), then moves its register past the bytes after its part; the parts XOR together
// (the register is linear in the bytes), and the preset's effect over the whole length and the
// inversion are added last.
//
// Polynomial arithmetic in the reflected representation: bit 31 is x^0, bit 0 is x^31.
#include <stdint.h>

namespace {

constexpr uint32_t POLY = 0x82F63B78u;
constexpr int WARPS = 8;

/** a(x) * b(x) mod p(x). */
__device__ __forceinline__ uint32_t multiply(uint32_t a, uint32_t b) {
    uint32_t product = 0;
#pragma unroll 4
    for (int i = 0; i < 32; i++) {
        if (a & (0x80000000u >> i)) product ^= b;
        b = (b & 1) ? (b >> 1) ^ POLY : b >> 1;
    }
    return product;
}

/** x^(8n) mod p(x): what n zero bytes do to a register. powers[k] = x^(2^k) mod p(x). */
__device__ __forceinline__ uint32_t zeroBytes(long long n, const uint32_t *powers) {
    uint32_t p = 0x80000000u;  // x^0
    for (int k = 3; n != 0; n >>= 1, k++) {
        if (n & 1) p = multiply(powers[k & 31], p);
    }
    return p;
}

}  // namespace

// table: count addresses, then count lengths (64-bit each); the count CRCs (32-bit) are written after them.
extern "C" __global__ void __launch_bounds__(32 * WARPS) crc32c_ranges(const long long *table, int count) {
    __shared__ uint32_t bytes[4][256];  // bytes[s][v]: the register after byte v and s zero bytes
    __shared__ uint32_t powers[32];
    for (int v = threadIdx.x; v < 256; v += blockDim.x) {
        uint32_t c = v;
        for (int b = 0; b < 8; b++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        bytes[0][v] = c;
    }
    if (threadIdx.x == 0) {
        uint32_t p = 0x40000000u;  // x^1
        for (int k = 0; k < 32; k++) {
            powers[k] = p;
            p = multiply(p, p);
        }
    }
    __syncthreads();
    for (int v = threadIdx.x; v < 256; v += blockDim.x) {
        uint32_t c = bytes[0][v];
        for (int s = 1; s < 4; s++) {
            c = (c >> 8) ^ bytes[0][c & 0xFF];
            bytes[s][v] = c;
        }
    }
    __syncthreads();

    uint32_t *crcs = reinterpret_cast<uint32_t *>(const_cast<long long *>(table + 2LL * count));
    const int lane = threadIdx.x & 31;
    for (int r = blockIdx.x * WARPS + (threadIdx.x >> 5); r < count; r += gridDim.x * WARPS) {
        const uint8_t *base = reinterpret_cast<const uint8_t *>(table[r]);
        const long long length = table[count + r];
        const long long part = ((length + 31) / 32 + 3) & ~3LL;
        const long long start = min(length, lane * part);
        const long long end = min(length, start + part);
        uint32_t c = 0;
        long long at = start;
        while (at < end && ((reinterpret_cast<uintptr_t>(base) + at) & 3) != 0) c = bytes[0][(c ^ base[at++]) & 0xFF] ^ (c >> 8);
        for (; at + 4 <= end; at += 4) {
            c ^= *reinterpret_cast<const uint32_t *>(base + at);  // little-endian: the first byte lowest
            c = bytes[3][c & 0xFF] ^ bytes[2][(c >> 8) & 0xFF] ^ bytes[1][(c >> 16) & 0xFF] ^ bytes[0][c >> 24];
        }
        while (at < end) c = bytes[0][(c ^ base[at++]) & 0xFF] ^ (c >> 8);
        if (c != 0 && end < length) c = multiply(zeroBytes(length - end, powers), c);
        for (int o = 16; o > 0; o >>= 1) c ^= __shfl_xor_sync(0xFFFFFFFFu, c, o);
        if (lane == 0) crcs[r] = c ^ multiply(zeroBytes(length, powers), 0xFFFFFFFFu) ^ 0xFFFFFFFFu;
    }
}

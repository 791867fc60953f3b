// CRC32C (Castagnoli: reflected polynomial 0x82F63B78, register preset to all ones, result
// inverted, as java.util.zip.CRC32C computes it) of pages in device memory, so that a page check
// need not copy pages to the host; optionally copying each page as it is read, so that a copy and
// the checksum of what it moved take one read of the bytes. The pages are the same list of every
// buffer (a run's pages over a store's layers and pools), so the host sends a buffer's base once,
// not a range per page.
//
// One warp a page of a buffer (a range). The CRC register (preset 0, no inversion) is linear in the bytes, so the
// range's register is the XOR of the registers of 32 sequences, lane l's sequence holding the
// range's 4-byte words l, l + 32, l + 64, ... and zeros elsewhere. Each warp step reads 128
// contiguous bytes (coalesced); a lane folds its word in and moves its register past the 124 bytes
// of the other lanes in the same four table lookups ("skip" tables: a byte followed by 124 + s zero
// bytes). Its last word uses the plain slicing-by-4 tables, and one multiplication by x^(32u)
// moves the register to the range's end. The preset's effect over the whole length and the
// inversion are the CRC32C of as many zero bytes, which the host supplies per range. Ranges whose
// address or length is not a multiple of 4 go byte by byte, a slice per lane.
//
// The skip tables are replicated `copies` times, interleaved, so that lane l reads copy
// l % copies: with 32 copies every lane has a bank of its own and the lookups never conflict.
//
// crc32c_join then joins each page's checksums over the buffers into the checksum of the page's
// bytes of every buffer in turn, so the host reads back one checksum a page: appending b's bytes
// multiplies the register by x^(8 * length_b), so each buffer's checksum enters times x^(8 * the
// bytes after it), a multiplier the host sends per buffer.
//
// Polynomial arithmetic in the reflected representation: bit 31 is x^0, bit 0 is x^31.
#include <stdint.h>

namespace {

constexpr uint32_t POLY = 0x82F63B78u;
constexpr int THREADS = 1024;

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

/** A lane's next UNROLL words of a range: words 0, 32, 64, ... from `from`. */
template <int UNROLL>
__device__ __forceinline__ void load(uint32_t (&w)[UNROLL], const uint32_t *__restrict__ from) {
#pragma unroll
    for (int u = 0; u < UNROLL; u++) w[u] = from[32 * u];
}

}  // namespace

// table: count source buffers' bases; count destination bases (0: checksum only); count entries of
// the buffer's page size in bytes (low 32 bits) and the CRC32C of that many zero bytes (high 32);
// count multipliers x^(8 * the bytes of the later buffers' pages) mod p(x) (low 32 bits, for
// crc32c_join); then pages source
// page indices and pages destination page indices. Range b * pages + k is page src[k] of buffer b,
// copied to page dst[k] of its destination; the count * pages CRCs (32-bit) are written after the
// lists, in that order. Dynamic shared memory: 4,096 * copies bytes.
template <int UNROLL, bool AHEAD>
__device__ __forceinline__ void checksumPages(const long long *table, int count, int pages, int copies) {
    extern __shared__ uint32_t skip[];  // skip[((s * 256) + v) * copies + g]: byte v, then 124 + s zero bytes
    __shared__ uint32_t bytes[4][256];  // bytes[s][v]: the register after byte v and s zero bytes
    __shared__ uint32_t words[32];      // words[u] = x^(32u) mod p(x): what u zero words do
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
    for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) {
        uint32_t c = bytes[0][i & 0xFF];
        for (int z = 0; z < 124 + (i >> 8); z++) c = (c >> 8) ^ bytes[0][c & 0xFF];
        for (int g = 0; g < copies; g++) skip[i * copies + g] = c;
    }
    if (threadIdx.x == 32) {
        uint32_t c = 0x80000000u;  // x^0
        for (int u = 0; u < 32; u++) {
            words[u] = c;
            for (int z = 0; z < 4; z++) c = (c >> 8) ^ bytes[0][c & 0xFF];
        }
    }
    __syncthreads();

    const long long *srcPages = table + 4LL * count;
    const long long *dstPages = srcPages + pages;
    uint32_t *crcs = reinterpret_cast<uint32_t *>(const_cast<long long *>(dstPages + pages));
    const int lane = threadIdx.x & 31;
    const uint32_t *mine = skip + lane % copies;
    const int stride = 256 * copies;
    const int warps = blockDim.x >> 5;
    const long long ranges = static_cast<long long>(count) * pages;
    for (long long r = blockIdx.x * warps + (threadIdx.x >> 5); r < ranges; r += gridDim.x * warps) {
        const int b = static_cast<int>(r / pages);
        const int k = static_cast<int>(r - static_cast<long long>(b) * pages);
        const unsigned long long entry = table[2LL * count + b];
        const uint32_t length = static_cast<uint32_t>(entry);
        const uint32_t zeros = static_cast<uint32_t>(entry >> 32);
        const unsigned long long src = table[b] + srcPages[k] * length;
        const unsigned long long dst = table[count + b] == 0 ? 0 : table[count + b] + dstPages[k] * length;
        uint32_t c = 0;
        if (((src | dst | length) & 3) == 0) {
            const uint32_t *__restrict__ from = reinterpret_cast<const uint32_t *>(src);
            uint32_t *__restrict__ to = reinterpret_cast<uint32_t *>(dst);
            const long long n = length >> 2;
            long long j = lane;
            uint32_t w[UNROLL];
            if (AHEAD && j + 32 * UNROLL < n) load<UNROLL>(w, from + j);
            for (; j + 32 * UNROLL < n; j += 32 * UNROLL) {  // each of the UNROLL words has a successor in this lane
                uint32_t next[UNROLL];
                const bool more = AHEAD && j + 64 * UNROLL < n;
                if (AHEAD) {
                    if (more) load<UNROLL>(next, from + j + 32 * UNROLL);
                } else {
                    load<UNROLL>(w, from + j);
                }
                if (to != nullptr) {
#pragma unroll
                    for (int u = 0; u < UNROLL; u++) to[j + 32 * u] = w[u];
                }
#pragma unroll
                for (int u = 0; u < UNROLL; u++) {
                    c ^= w[u];
                    c = mine[3 * stride + (c & 0xFF) * copies] ^ mine[2 * stride + ((c >> 8) & 0xFF) * copies]
                        ^ mine[stride + ((c >> 16) & 0xFF) * copies] ^ mine[(c >> 24) * copies];
                }
                if (more) {
#pragma unroll
                    for (int u = 0; u < UNROLL; u++) w[u] = next[u];
                }
            }
            for (; j + 32 < n; j += 32) {
                const uint32_t w = from[j];
                if (to != nullptr) to[j] = w;
                c ^= w;
                c = mine[3 * stride + (c & 0xFF) * copies] ^ mine[2 * stride + ((c >> 8) & 0xFF) * copies]
                    ^ mine[stride + ((c >> 16) & 0xFF) * copies] ^ mine[(c >> 24) * copies];
            }
            if (j < n) {  // the lane's last word: no skip after it, then the words to the range's end
                const uint32_t w = from[j];
                if (to != nullptr) to[j] = w;
                c ^= w;
                c = bytes[3][c & 0xFF] ^ bytes[2][(c >> 8) & 0xFF] ^ bytes[1][(c >> 16) & 0xFF] ^ bytes[0][c >> 24];
                c = multiply(words[n - 1 - j], c);
            }
        } else {
            const uint8_t *from = reinterpret_cast<const uint8_t *>(src);
            uint8_t *to = reinterpret_cast<uint8_t *>(dst);
            const uint32_t part = (length + 31) / 32;
            const uint32_t start = min(length, lane * part);
            const uint32_t end = min(length, start + part);
            for (uint32_t at = start; at < end; at++) {
                const uint8_t b = from[at];
                if (to != nullptr) to[at] = b;
                c = bytes[0][(c ^ b) & 0xFF] ^ (c >> 8);
            }
            if (c != 0 && end < length) c = multiply(zeroBytes(length - end, powers), c);
        }
        for (int o = 16; o > 0; o >>= 1) c ^= __shfl_xor_sync(0xFFFFFFFFu, c, o);
        if (lane == 0) crcs[r] = c ^ zeros;
    }
}

// Eight words a lane, the next eight loaded before the current ones are folded in. Measured on an
// H100 against 4 and 16 words, loading ahead or not (bench/device/crc_kernel.cu): every shape within
// 3 % of the others, this one 2.5 % ahead on checksums alone and level on copies, so the loop's
// shape is not what bounds the kernel.
extern "C" __global__ void __launch_bounds__(THREADS) crc32c_pages(const long long *table, int count, int pages, int copies) {
    checksumPages<8, true>(table, count, pages, copies);
}

// The table and its count * pages CRCs as crc32c_pages left them: writes, after those, page k's
// joined checksum for each k, the CRC32C of page k's bytes of buffer 0, then of buffer 1, ... Joining
// in turn is c = c * x^(8 * length_b) + crc_b from c = 0, so the joined checksum is the sum over b of
// crc_b times x^(8 * the bytes after buffer b's page): the multipliers the host sends. A warp a
// page, a lane every 32nd buffer, the lanes' sums added by shuffles.
extern "C" __global__ void crc32c_join(const long long *table, int count, int pages) {
    const uint32_t *crcs = reinterpret_cast<const uint32_t *>(table + 4LL * count + 2LL * pages);
    uint32_t *joined = const_cast<uint32_t *>(crcs) + static_cast<long long>(count) * pages;
    const long long *multipliers = table + 3LL * count;
    const int lane = threadIdx.x & 31;
    const int warps = blockDim.x >> 5;
    for (int k = blockIdx.x * warps + (threadIdx.x >> 5); k < pages; k += gridDim.x * warps) {
        uint32_t c = 0;
        for (int b = lane; b < count; b += 32) {
            c ^= multiply(static_cast<uint32_t>(multipliers[b]), crcs[static_cast<long long>(b) * pages + k]);
        }
        for (int o = 16; o > 0; o >>= 1) c ^= __shfl_xor_sync(0xFFFFFFFFu, c, o);
        if (lane == 0) joined[k] = c;
    }
}

// The indexer's scores on tensor cores: the cuda device's prebuilt task for IndexerKernels.scoreFp8
// (its Java reference), scores[q*nk + j] = sum_d queries[q*dim + d] * fp8(keys[j*dim + d]) * scales[j],
// for index dims that are a multiple of 16 up to 128 (one scale a key). IndexScoreLaunch picks it.
//
// How it keeps fp32 accuracy on half-precision tensor cores:
//  - a key's fp8 e4m3 code is exact in fp16, so the keys enter as their codes and the scale
//    multiplies the finished sum;
//  - each query row is scaled by a power of two so that its largest magnitude lies in [2^13, 2^14),
//    then split into a high fp16 part and the fp16 rounding of the rest: hi + lo carries 22 bits of
//    the 24, so each product is off by at most 2^-22 of itself;
//  - the hi and lo products accumulate in fp32 (two accumulators, added at the end); the epilogue
//    multiplies by the key's scale and undoes the row's power of two (exact).
//
// Shape of the work: a block is 8 warps, each owning 16 query rows whose fragments stay in registers;
// every warp sweeps the block's span of keys 16 at a time (two m16n8 tiles, four independent chains
// of mma, so that one step's stores overlap other warps' products), so the block's warps read the
// same key rows (through L1) and each key span is read from L2 once per block. The dot product
// runs over the dims in a permuted order that lets each thread hold dim/4 contiguous bytes of a key
// row and dim/4 contiguous floats of a query row: within a k16 step, the fragment slots a thread
// owns (k = 2t, 2t+1, 2t+8, 2t+9 for lane t of a quad) are its next 4 contiguous dims. A and B use the
// same order, and a dot product does not depend on the order of its terms except by rounding.
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

namespace {

constexpr int WARPS = 8;
constexpr int ROWS = 16 * WARPS;
// A row's largest magnitude is scaled into [2^13, 2^14); rows below 2^-100 are scaled as if there,
// so the factor and its inverse stay normal floats (such rows lose fp16 precision, not range).
constexpr int TOP_EXP = 14;
constexpr int LOWEST_EXP = -100;

__device__ __forceinline__ uint32_t halves(float a, float b) {
    __half2 h = __floats2half2_rn(a, b);  // a in the low 16 bits: the lower k of the pair
    return *reinterpret_cast<uint32_t *>(&h);
}

/** The high fp16 pair of (a, b) and, through *rest, the fp16 pair of what the high part left out. */
__device__ __forceinline__ uint32_t split(float a, float b, uint32_t *rest) {
    __half2 h = __floats2half2_rn(a, b);
    float2 back = __half22float2(h);
    *rest = halves(a - back.x, b - back.y);
    return *reinterpret_cast<uint32_t *>(&h);
}

/** Two fp8 e4m3 codes (the low byte first) as an fp16 pair, exactly. */
__device__ __forceinline__ uint32_t codes(uint32_t two) {
    __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(two & 0xFFFFu), __NV_E4M3);
    return static_cast<uint32_t>(h.x) | (static_cast<uint32_t>(h.y) << 16);
}

__device__ __forceinline__ void mma(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/** This thread's STEPS words (dim/4 bytes) of key row `key`, or zeros past the keys. */
template <int STEPS>
__device__ __forceinline__ void load_key(const uint8_t *__restrict__ keys, long long key, int nk, int t, uint32_t w[STEPS]) {
    if (key >= nk) {
#pragma unroll
        for (int s = 0; s < STEPS; s++) w[s] = 0;
        return;
    }
    const uint8_t *at = keys + key * (16 * STEPS) + 4 * STEPS * t;
    if constexpr (STEPS % 4 == 0) {
#pragma unroll
        for (int s = 0; s < STEPS; s += 4) {
            uint4 v = __ldg(reinterpret_cast<const uint4 *>(at) + s / 4);
            w[s] = v.x; w[s + 1] = v.y; w[s + 2] = v.z; w[s + 3] = v.w;
        }
    } else if constexpr (STEPS % 2 == 0) {
#pragma unroll
        for (int s = 0; s < STEPS; s += 2) {
            uint2 v = __ldg(reinterpret_cast<const uint2 *>(at) + s / 2);
            w[s] = v.x; w[s + 1] = v.y;
        }
    } else {
#pragma unroll
        for (int s = 0; s < STEPS; s++) w[s] = __ldg(reinterpret_cast<const uint32_t *>(at) + s);
    }
}

/** The scales of keys j and j + 1, zero past the keys. */
__device__ __forceinline__ float2 load_scales(const float *__restrict__ scales, int j, int nk) {
    return make_float2(j < nk ? __ldg(scales + j) : 0.0f, j + 1 < nk ? __ldg(scales + j + 1) : 0.0f);
}

__device__ __forceinline__ void store(float *__restrict__ scores, long long at, float a, float b, bool pair, bool second) {
    if (pair) {
        __stcs(reinterpret_cast<float2 *>(scores + at), make_float2(a, b));
    } else {
        __stcs(scores + at, a);
        if (second) __stcs(scores + at + 1, b);
    }
}

// WRITE false keeps the scores in a register sum, one float a thread (bench/device/scores_variants.cu
// times the kernel without its stores that way); the entry points below write. TILES is how many
// tiles of 8 keys a warp takes a step, each with its own two chains of mma: the entry points take two,
// scores_variants.cu times one against them. Without WIDE a lane writes its scores as 8-byte pairs;
// with WIDE (two tiles; the entry points' choice, 6-7 % faster alone on an H100 with the same bits)
// each row's 16 scores of a step leave as four 16-byte stores, a pair of each lane's scores swapped
// with its neighbour's first, where both tiles lie whole within the keys and a row's length is a
// multiple of 4; elsewhere (ragged rows, a span's odd last tile) the pairs as before.
/** Tile `tile`'s finished sums c (rows g and g + 8) scaled and written as 8-byte pairs, what lies within the keys. */
__device__ __forceinline__ void store_tile(float *__restrict__ scores, const float c[4], float2 sc, const float undo[2], long long q0, int g,
                                           int t, int tile, int end, int nq, int nk, bool pairs) {
    const int j = tile * 8 + 2 * t;
    if (tile < end && j < nk) {
        const bool second = j + 1 < nk;
        if (q0 + g < nq) store(scores, (q0 + g) * nk + j, c[0] * sc.x * undo[0], c[1] * sc.y * undo[0], pairs, second);
        if (q0 + g + 8 < nq) store(scores, (q0 + g + 8) * nk + j, c[2] * sc.x * undo[1], c[3] * sc.y * undo[1], pairs, second);
    }
}

template <int STEPS, bool WRITE = true, int TILES = 1, bool WIDE = false>
__device__ __forceinline__ void scores_of(const float *__restrict__ queries, const uint8_t *__restrict__ keys,
                                          const float *__restrict__ scales, float *__restrict__ scores, int nq, int nk,
                                          int tilesPerBlock) {
    static_assert(!WIDE || TILES == 2, "wide stores join two tiles' scores");
    constexpr int DIM = 16 * STEPS;
    constexpr int PER = 4 * STEPS;  // dims a thread holds of each row
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;
    const int t = lane & 3;
    const long long q0 = (long long) blockIdx.x * ROWS + (threadIdx.x >> 5) * 16;
    if (q0 >= nq) return;  // no barrier below: a warp without rows leaves at once

    // The warp's 16 query rows as hi/lo fp16 fragments, row g in slots 0 and 2, row g + 8 in 1 and 3.
    uint32_t hi[STEPS][4], lo[STEPS][4];
    float undo[2];
#pragma unroll
    for (int r = 0; r < 2; r++) {
        const long long row = q0 + g + 8 * r;
        float x[PER];
        float top = 0.0f;
#pragma unroll
        for (int i = 0; i < PER; i += 4) {
            float4 v = row < nq ? __ldg(reinterpret_cast<const float4 *>(queries + row * DIM + PER * t + i)) : make_float4(0, 0, 0, 0);
            x[i] = v.x; x[i + 1] = v.y; x[i + 2] = v.z; x[i + 3] = v.w;
            top = fmaxf(top, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
        }
        top = fmaxf(top, __shfl_xor_sync(0xFFFFFFFFu, top, 1));  // the quad holds the whole row
        top = fmaxf(top, __shfl_xor_sync(0xFFFFFFFFu, top, 2));
        int e = 0;
        frexpf(top, &e);
        e = max(e, LOWEST_EXP);
        const float up = exp2f(static_cast<float>(TOP_EXP - e));
        undo[r] = exp2f(static_cast<float>(e - TOP_EXP));
#pragma unroll
        for (int s = 0; s < STEPS; s++) {
            hi[s][r] = split(x[4 * s] * up, x[4 * s + 1] * up, &lo[s][r]);
            hi[s][r + 2] = split(x[4 * s + 2] * up, x[4 * s + 3] * up, &lo[s][r + 2]);
        }
    }

    const int tiles = (nk + 7) / 8;
    const int first = blockIdx.y * tilesPerBlock;
    const int end = min(tiles, first + tilesPerBlock);
    const bool pairs = (nk & 1) == 0;  // then every (row, 2t) entry is 8-byte aligned
    const bool quads = (nk & 3) == 0;  // and every (row, 4i) entry 16-byte aligned
    float sink = 0.0f;
    // the next TILES tiles' key words and this thread's key scales load while these tiles compute
    uint32_t next[TILES][STEPS];
    float2 nextScales[TILES];
#pragma unroll
    for (int u = 0; u < TILES; u++) {
        nextScales[u] = make_float2(0.0f, 0.0f);
        if (first + u < end) {
            load_key<STEPS>(keys, (long long) (first + u) * 8 + g, nk, t, next[u]);
            nextScales[u] = load_scales(scales, (first + u) * 8 + 2 * t, nk);
        }
    }
    for (int tile = first; tile < end; tile += TILES) {
        uint32_t w[TILES][STEPS];
        float2 sc[TILES];
#pragma unroll
        for (int u = 0; u < TILES; u++) {
#pragma unroll
            for (int s = 0; s < STEPS; s++) w[u][s] = next[u][s];
            sc[u] = nextScales[u];
        }
#pragma unroll
        for (int u = 0; u < TILES; u++) {
            if (tile + TILES + u < end) {
                load_key<STEPS>(keys, (long long) (tile + TILES + u) * 8 + g, nk, t, next[u]);
                nextScales[u] = load_scales(scales, (tile + TILES + u) * 8 + 2 * t, nk);
            }
        }
        // two accumulators a tile, so the high and low products form independent chains of mma
        float c[TILES][4], d[TILES][4];
#pragma unroll
        for (int u = 0; u < TILES; u++) {
#pragma unroll
            for (int i = 0; i < 4; i++) c[u][i] = d[u][i] = 0.0f;
        }
#pragma unroll
        for (int s = 0; s < STEPS; s++) {
#pragma unroll
            for (int u = 0; u < TILES; u++) {
                const uint32_t b0 = codes(w[u][s]);
                const uint32_t b1 = codes(w[u][s] >> 16);
                mma(c[u], hi[s], b0, b1);
                mma(d[u], lo[s], b0, b1);
            }
        }
#pragma unroll
        for (int u = 0; u < TILES; u++) {
#pragma unroll
            for (int i = 0; i < 4; i++) c[u][i] += d[u][i];
            if constexpr (!WRITE) {
                sink += (c[u][0] + c[u][2]) * sc[u].x + (c[u][1] + c[u][3]) * sc[u].y;
            } else if constexpr (!WIDE) {
                store_tile(scores, c[u], sc[u], undo, q0, g, t, tile + u, end, nq, nk, pairs);
            }
        }
        if constexpr (WRITE && WIDE) {
            if (quads && tile + 1 < end && (tile + 2) * 8 <= nk) {
                // both tiles whole: lanes t and t ^ 1 swap a pair of each row, so that an even lane
                // holds keys 2t .. 2t+3 of the first tile and an odd one keys 2t-2 .. 2t+1 of the
                // second, and each row goes out as one 16-byte store a lane (the quad's 64 bytes)
                const bool odd = t & 1;
#pragma unroll
                for (int r = 0; r < 2; r++) {
                    const float a0 = c[0][2 * r] * sc[0].x * undo[r], a1 = c[0][2 * r + 1] * sc[0].y * undo[r];
                    const float b0 = c[TILES - 1][2 * r] * sc[TILES - 1].x * undo[r], b1 = c[TILES - 1][2 * r + 1] * sc[TILES - 1].y * undo[r];
                    const float got0 = __shfl_xor_sync(0xFFFFFFFFu, odd ? a0 : b0, 1);
                    const float got1 = __shfl_xor_sync(0xFFFFFFFFu, odd ? a1 : b1, 1);
                    const long long row = q0 + g + 8 * r;
                    if (row < nq) {
                        const int j = tile * 8 + (odd ? 6 + 2 * t : 2 * t);
                        __stcs(reinterpret_cast<float4 *>(scores + row * nk + j), odd ? make_float4(got0, got1, b0, b1) : make_float4(a0, a1, got0, got1));
                    }
                }
            } else {
#pragma unroll
                for (int u = 0; u < TILES; u++) store_tile(scores, c[u], sc[u], undo, q0, g, t, tile + u, end, nq, nk, pairs);
            }
        }
    }
    if constexpr (!WRITE) {
        scores[(long long) blockIdx.y * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x] = sink;
    }
}

}  // namespace

// One entry point per dim (16 * STEPS): the fragments are registers, so their count is fixed at compile time.
#define INDEX_SCORES(STEPS)                                                                                              \
    extern "C" __global__ void __launch_bounds__(32 * WARPS, 2)                                                         \
        index_scores_d##STEPS(const float *__restrict__ queries, const uint8_t *__restrict__ keys,                      \
                              const float *__restrict__ scales, float *__restrict__ scores, int nq, int nk,             \
                              int tilesPerBlock) {                                                                      \
        scores_of<STEPS, true, 2, true>(queries, keys, scales, scores, nq, nk, tilesPerBlock);                          \
    }
INDEX_SCORES(1)
INDEX_SCORES(2)
INDEX_SCORES(3)
INDEX_SCORES(4)
INDEX_SCORES(5)
INDEX_SCORES(6)
INDEX_SCORES(7)
INDEX_SCORES(8)

// On the GPU machine: the prebuilt indexer-score kernel (cuda-fallback/src/main/cuda/index_scores.cu)
// alone, outside the JVM: each shape's largest error against a double-precision reference on sampled
// scores (relative to sum |q*k|), and its time at several key spans per block (median of 20 after 3,
// CUDA events), with the achieved TFLOP/s and output write bandwidth (used to choose the span that
// ScoreGrid asks for); then, at dim 128, the kernel without its stores, its stores alone, and the
// kernel taking one tile a step as before (with and without stores), and the kernel with 8-byte
// pair stores (not WIDE, as before 2026-12-07): both variants' scores must equal the kernel's bits.
// nvcc -arch=sm_90 -O3 -o /tmp/sv bench/device/scores_variants.cu && /tmp/sv NQ NK [DIM]
#include "../../cuda-fallback/src/main/cuda/index_scores.cu"

// The kernel without its stores (each thread keeps a sum of its scaled scores), and the stores
// without the kernel (the same pattern: per warp and tile, 8 rows × 32 bytes for rows g and g + 8),
// to see which one bounds it.
extern "C" __global__ void __launch_bounds__(256, 2) scores_no_stores(const float *q, const uint8_t *k, const float *s, float *out,
                                                                      int nq, int nk, int span) {
    scores_of<8, false, 2>(q, k, s, out, nq, nk, span);
}

// One tile a step (TILES = 1, the kernel before 2026-12-07): two chains of mma a warp instead of four.
extern "C" __global__ void __launch_bounds__(256, 2) scores_one_tile(const float *q, const uint8_t *k, const float *s, float *out,
                                                                     int nq, int nk, int span) {
    scores_of<8, true, 1>(q, k, s, out, nq, nk, span);
}

// The entry points' kernel with its scores written as 8-byte pairs a lane (not WIDE), as before 2026-12-07.
extern "C" __global__ void __launch_bounds__(256, 2) scores_pairs(const float *q, const uint8_t *k, const float *s, float *out,
                                                                 int nq, int nk, int span) {
    scores_of<8, true, 2>(q, k, s, out, nq, nk, span);
}

extern "C" __global__ void __launch_bounds__(256, 2) scores_one_tile_no_stores(const float *q, const uint8_t *k, const float *s,
                                                                               float *out, int nq, int nk, int span) {
    scores_of<8, false, 1>(q, k, s, out, nq, nk, span);
}

extern "C" __global__ void __launch_bounds__(256, 2) stores_only(float *out, int nq, int nk, int span) {
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const long long q0 = (long long) blockIdx.x * ROWS + (threadIdx.x >> 5) * 16;
    const int first = blockIdx.y * span, end = min((nk + 7) / 8, first + span);
    for (int tile = first; tile < end; tile++) {
        const int j = tile * 8 + 2 * t;
        __stcs(reinterpret_cast<float2 *>(out + (q0 + g) * nk + j), make_float2(tile, j));
        __stcs(reinterpret_cast<float2 *>(out + (q0 + g + 8) * nk + j), make_float2(j, tile));
    }
}

#include "event_timing.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

static float e4m3(uint8_t c) {
    int s = c >> 7, e = (c >> 3) & 15, m = c & 7;
    if (e == 15 && m == 7) return NAN;
    float v = e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1.0f + m / 8.0f, e - 7);
    return s ? -v : v;
}

int main(int argc, char **argv) {
    int nq = std::atoi(argv[1]), nk = std::atoi(argv[2]), dim = argc > 3 ? std::atoi(argv[3]) : 128;
    int steps = dim / 16;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    std::vector<float> q((size_t) nq * dim), scales(nk);
    std::vector<uint8_t> keys((size_t) nk * dim);
    for (auto &x : q) x = normal(rng);
    for (int j = 0; j < nk; j++) {
        scales[j] = std::ldexp(1.0f + (rng() % 1000) / 1000.0f, -9);
        for (int d = 0; d < dim; d++) {
            uint8_t c = rng() & 0xFF;
            if ((c & 0x7F) == 0x7F) c ^= 1;  // no NaN codes
            keys[(size_t) j * dim + d] = c;
        }
    }
    float *dq, *ds, *dout;
    uint8_t *dk;
    size_t outBytes = (size_t) nq * nk * 4;
    CHECK(cudaMalloc(&dq, q.size() * 4));
    CHECK(cudaMalloc(&ds, scales.size() * 4));
    CHECK(cudaMalloc(&dk, keys.size()));
    CHECK(cudaMalloc(&dout, outBytes));
    CHECK(cudaMemcpy(dq, q.data(), q.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(ds, scales.data(), scales.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dk, keys.data(), keys.size(), cudaMemcpyHostToDevice));
    void (*kernels[])(const float *, const uint8_t *, const float *, float *, int, int, int) = {
        index_scores_d1, index_scores_d2, index_scores_d3, index_scores_d4,
        index_scores_d5, index_scores_d6, index_scores_d7, index_scores_d8};
    auto kernel = kernels[steps - 1];
    int tiles = (nk + 7) / 8, qBlocks = (nq + ROWS - 1) / ROWS;
    std::vector<float> out((size_t) nq * nk);
    for (int span : {8, 16, 32, 64, 128, 256, 512}) {
        int spans = (tiles + span - 1) / span;
        if (spans > 65535) continue;
        dim3 grid(qBlocks, spans);
        CHECK(cudaMemset(dout, 0xFF, outBytes));  // NaN: an unwritten score fails the check
        double med = median_ms([&] { kernel<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span); });
        CHECK(cudaMemcpy(out.data(), dout, outBytes, cudaMemcpyDeviceToHost));
        double worst = 0;
        std::mt19937 pick(span);
        for (int s = 0; s < 20000; s++) {
            size_t i = pick() % nq, j = pick() % nk;
            double ref = 0, mag = 0;
            for (int d = 0; d < dim; d++) {
                double p = (double) q[i * dim + d] * ((double) e4m3(keys[j * dim + d]) * scales[j]);
                ref += p;
                mag += std::fabs(p);
            }
            double err = std::fabs(out[i * nk + j] - ref) / mag;
            worst = std::isnan(err) ? INFINITY : std::max(worst, err);
        }
        std::printf("{\"name\":\"scores_variant\",\"nq\":%d,\"nk\":%d,\"dim\":%d,\"span_tiles\":%d,\"blocks\":%d,\"median_ms\":%.4f,"
                    "\"tflops\":%.1f,\"write_tbs\":%.2f,\"max_rel_err\":%.3g}\n",
                    nq, nk, dim, span, qBlocks * spans, med, 2.0 * nq * nk * dim / (med * 1e9), outBytes / (med * 1e9), worst);
    }
    if (dim == 128 && nq % ROWS == 0 && nk % 8 == 0) {
        for (int span : {32, 256}) {
            int spans = (tiles + span - 1) / span;
            dim3 grid(qBlocks, spans);
            double whole = median_ms([&] { index_scores_d8<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span); });
            double without = median_ms([&] { scores_no_stores<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span); });
            double alone = median_ms([&] { stores_only<<<grid, 32 * WARPS>>>(dout, nq, nk, span); });
            // one tile a step: the same arithmetic a score, so the same bits as the kernel's
            index_scores_d8<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span);
            CHECK(cudaMemcpy(out.data(), dout, outBytes, cudaMemcpyDeviceToHost));
            CHECK(cudaMemset(dout, 0xFF, outBytes));
            double one = median_ms([&] { scores_one_tile<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span); });
            double oneWithout = median_ms([&] { scores_one_tile_no_stores<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span); });
            scores_one_tile<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span);
            std::vector<float> other((size_t) nq * nk);
            auto differing = [&] {
                CHECK(cudaMemcpy(other.data(), dout, outBytes, cudaMemcpyDeviceToHost));
                size_t n = 0;
                for (size_t i = 0; i < other.size(); i++) n += std::memcmp(&other[i], &out[i], 4) != 0;
                CHECK(cudaMemset(dout, 0xFF, outBytes));
                return n;
            };
            size_t differ = differing();
            double pairs = median_ms([&] { scores_pairs<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span); });
            scores_pairs<<<grid, 32 * WARPS>>>(dq, dk, ds, dout, nq, nk, span);
            size_t pairsDiffer = differing();
            std::printf("{\"name\":\"scores_parts\",\"nq\":%d,\"nk\":%d,\"span_tiles\":%d,\"kernel_ms\":%.4f,"
                        "\"without_stores_ms\":%.4f,\"stores_alone_ms\":%.4f,\"one_tile_ms\":%.4f,\"one_tile_without_stores_ms\":%.4f,"
                        "\"one_tile_scores_differing\":%zu,\"pairs_ms\":%.4f,\"pairs_scores_differing\":%zu}\n",
                        nq, nk, span, whole, without, alone, one, oneWithout, differ, pairs, pairsDiffer);
        }
    }
    return 0;
}

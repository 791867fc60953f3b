// Variant sweep for the page-copy kernel (bench/device, not shipped): same data and page lists as
// CudaCopyBench's gather_mla (41,984-byte pages, 50,000 random pages of a 100,000-page pool),
// timed with CUDA events, median of 20. Build: nvcc -O3 -arch=sm_90 -o copy_variants copy_variants.cu
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

// A: shipped shape: 4 loads per trip + single-load tail, __ldg
__global__ void vA(const int4* __restrict__ s0, int4* __restrict__ d0, int vec, const long long* sp, const long long* dp, long long n) {
  for (long long p = blockIdx.x; p < n; p += gridDim.x) {
    const int4* s = s0 + sp[p] * vec; int4* d = d0 + dp[p] * vec; int st = blockDim.x; int j = threadIdx.x;
    for (; j + 3 * st < vec; j += 4 * st) { int4 a = __ldg(s + j), b = __ldg(s + j + st), c = __ldg(s + j + 2 * st), e = __ldg(s + j + 3 * st);
      d[j] = a; d[j + st] = b; d[j + 2 * st] = c; d[j + 3 * st] = e; }
    for (; j < vec; j += st) d[j] = __ldg(s + j);
  }
}
// B: K guarded loads per trip (tail batched too), plain loads
template <int K>
__global__ void vB(const int4* __restrict__ s0, int4* __restrict__ d0, int vec, const long long* sp, const long long* dp, long long n) {
  for (long long p = blockIdx.x; p < n; p += gridDim.x) {
    const int4* s = s0 + sp[p] * vec; int4* d = d0 + dp[p] * vec; int st = blockDim.x;
    for (int j = threadIdx.x; j < vec; j += K * st) {
      int4 r[K];
#pragma unroll
      for (int k = 0; k < K; k++) if (j + k * st < vec) r[k] = s[j + k * st];
#pragma unroll
      for (int k = 0; k < K; k++) if (j + k * st < vec) d[j + k * st] = r[k];
    }
  }
}
// C: one block per (page, slice): grid = pages * slices, each block copies vec/slices int4, K loads in flight
template <int K>
__global__ void vC(const int4* __restrict__ s0, int4* __restrict__ d0, int vec, const long long* sp, const long long* dp, long long n, int slices) {
  long long p = blockIdx.x / slices; int slice = blockIdx.x % slices; if (p >= n) return;
  int per = (vec + slices - 1) / slices; int from = slice * per; int to = min(vec, from + per);
  const int4* s = s0 + sp[p] * vec; int4* d = d0 + dp[p] * vec; int st = blockDim.x;
  for (int j = from + threadIdx.x; j < to; j += K * st) {
    int4 r[K];
#pragma unroll
    for (int k = 0; k < K; k++) if (j + k * st < to) r[k] = s[j + k * st];
#pragma unroll
    for (int k = 0; k < K; k++) if (j + k * st < to) d[j + k * st] = r[k];
  }
}

int main() {
  const int vec = 41984 / 16; const long long pool = 100000, n = 50000;
  int4 *src, *dst; long long *sp, *dp;
  CK(cudaMalloc(&src, pool * vec * 16)); CK(cudaMalloc(&dst, n * vec * 16));
  CK(cudaMemset(src, 1, pool * vec * 16));
  std::vector<long long> perm(pool); for (long long i = 0; i < pool; i++) perm[i] = i;
  std::mt19937_64 g(1); std::shuffle(perm.begin(), perm.end(), g);
  std::vector<long long> ids(n); for (long long i = 0; i < n; i++) ids[i] = i;
  CK(cudaMalloc(&sp, n * 8)); CK(cudaMalloc(&dp, n * 8));
  CK(cudaMemcpy(sp, perm.data(), n * 8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dp, ids.data(), n * 8, cudaMemcpyHostToDevice));
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  double bytes = 2.0 * n * vec * 16;
  auto run = [&](const char* name, auto launch) {
    for (int i = 0; i < 3; i++) launch();
    std::vector<float> t;
    for (int i = 0; i < 20; i++) { cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
    std::sort(t.begin(), t.end());
    cudaError_t e = cudaGetLastError();
    printf("{\"variant\":\"%s\",\"median_ms\":%.4f,\"gbps\":%.1f,\"err\":\"%s\"}\n", name, t[10], bytes / (t[10] * 1e6), cudaGetErrorString(e));
  };
  int4* flat; CK(cudaMalloc(&flat, n * vec * 16));
  run("memcpy", [&] { cudaMemcpyAsync(dst, flat, n * vec * 16, cudaMemcpyDeviceToDevice); });
  for (int blocksPerSm : {8, 16, 32}) for (int threads : {128, 256, 512}) {
    long long grid = std::min<long long>(n, (long long) blocksPerSm * sms);
    char name[64];
    snprintf(name, 64, "A_t%d_g%dxSM", threads, blocksPerSm); run(name, [&] { vA<<<grid, threads>>>(src, dst, vec, sp, dp, n); });
    snprintf(name, 64, "B4_t%d_g%dxSM", threads, blocksPerSm); run(name, [&] { vB<4><<<grid, threads>>>(src, dst, vec, sp, dp, n); });
    snprintf(name, 64, "B8_t%d_g%dxSM", threads, blocksPerSm); run(name, [&] { vB<8><<<grid, threads>>>(src, dst, vec, sp, dp, n); });
  }
  for (int slices : {1, 2, 4, 8}) for (int threads : {128, 256}) {
    char name[64];
    snprintf(name, 64, "C2_t%d_s%d", threads, slices); run(name, [&] { vC<2><<<n * slices, threads>>>(src, dst, vec, sp, dp, n, slices); });
    snprintf(name, 64, "C4_t%d_s%d", threads, slices); run(name, [&] { vC<4><<<n * slices, threads>>>(src, dst, vec, sp, dp, n, slices); });
  }
  return 0;
}

// Variant sweep for the table gather (bench/device, not shipped): the full view of a 131,072-token
// request as the materialize stage gathers it from CP8 owner stores of DeepSeek V3.2 fp8 (61 layers,
// one MLA buffer of 41,984-byte pages and one indexer buffer of 8,448-byte pages per layer; 2,048
// pages, 256 per owner at random local pages): 8 x 122 rows of 256 page pairs. Each variant against
// one cudaMemcpyDtoD of the view's bytes, CUDA events, median of 10 after 2 warm-ups.
// Build: nvcc -O3 -arch=sm_90 -o table_variants table_variants.cu
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

// meta[3c] = page size in int4, meta[3c+1] = list offset, meta[3c+2] = count; addrs[c] source, addrs[rows + c] destination.
// V0: the shipped shape: grid.x = widest * slices, grid.y = rows, each block a slice of one page, 2 loads in flight.
__global__ void v0(const long long* addrs, const long long* meta, int rows, const long long* sp, const long long* dp, int slices) {
  const int c = blockIdx.y; const long long p = blockIdx.x / slices; if (p >= meta[3 * c + 2]) return;
  const int4* s = reinterpret_cast<const int4*>(addrs[c]); int4* d = reinterpret_cast<int4*>(addrs[rows + c]);
  const int vec = (int) meta[3 * c]; const long long at = meta[3 * c + 1] + p;
  const int per = (vec + slices - 1) / slices; const int from = (blockIdx.x % slices) * per; const int to = min(vec, from + per);
  s += sp[at] * vec; d += dp[at] * vec; const int st = blockDim.x;
  for (int j = from + threadIdx.x; j < to; j += 2 * st) { bool two = j + st < to; int4 a = s[j]; int4 b; if (two) b = s[j + st]; d[j] = a; if (two) d[j + st] = b; }
}
// V1: one warp per page over a flat work list (item i = row, pair); K loads in flight per lane.
template <int K>
__global__ void v1(const long long* addrs, const long long* meta, int rows, const long long* sp, const long long* dp, const int* items, int n) {
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; const int lane = threadIdx.x & 31; if (w >= n) return;
  const int c = items[2 * w]; const long long at = meta[3 * c + 1] + items[2 * w + 1]; const int vec = (int) meta[3 * c];
  const int4* s = reinterpret_cast<const int4*>(addrs[c]) + sp[at] * vec; int4* d = reinterpret_cast<int4*>(addrs[rows + c]) + dp[at] * vec;
  for (int j = lane; j < vec; j += K * 32) {
    int4 r[K];
#pragma unroll
    for (int k = 0; k < K; k++) if (j + k * 32 < vec) r[k] = s[j + k * 32];
#pragma unroll
    for (int k = 0; k < K; k++) if (j + k * 32 < vec) d[j + k * 32] = r[k];
  }
}
// V2: one block per page (no slices), grid.y = rows, K loads in flight.
template <int K>
__global__ void v2(const long long* addrs, const long long* meta, int rows, const long long* sp, const long long* dp) {
  const int c = blockIdx.y; const long long p = blockIdx.x; if (p >= meta[3 * c + 2]) return;
  const int vec = (int) meta[3 * c]; const long long at = meta[3 * c + 1] + p;
  const int4* s = reinterpret_cast<const int4*>(addrs[c]) + sp[at] * vec; int4* d = reinterpret_cast<int4*>(addrs[rows + c]) + dp[at] * vec;
  const int st = blockDim.x;
  for (int j = threadIdx.x; j < vec; j += K * st) {
    int4 r[K];
#pragma unroll
    for (int k = 0; k < K; k++) if (j + k * st < vec) r[k] = s[j + k * st];
#pragma unroll
    for (int k = 0; k < K; k++) if (j + k * st < vec) d[j + k * st] = r[k];
  }
}
// V3: fixed grid, each block walks (row, page) items in a grid-stride loop, whole page per block, K loads in flight.
template <int K>
__global__ void v3(const long long* addrs, const long long* meta, int rows, const long long* sp, const long long* dp, const int* items, int n) {
  for (int w = blockIdx.x; w < n; w += gridDim.x) {
    const int c = items[2 * w]; const long long at = meta[3 * c + 1] + items[2 * w + 1]; const int vec = (int) meta[3 * c];
    const int4* s = reinterpret_cast<const int4*>(addrs[c]) + sp[at] * vec; int4* d = reinterpret_cast<int4*>(addrs[rows + c]) + dp[at] * vec;
    const int st = blockDim.x;
    for (int j = threadIdx.x; j < vec; j += K * st) {
      int4 r[K];
#pragma unroll
      for (int k = 0; k < K; k++) if (j + k * st < vec) r[k] = s[j + k * st];
#pragma unroll
      for (int k = 0; k < K; k++) if (j + k * st < vec) d[j + k * st] = r[k];
    }
  }
}

template <typename F> float timed(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 2; i++) f();
  std::vector<float> ms;
  for (int i = 0; i < 10; i++) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float t; cudaEventElapsedTime(&t, a, b); ms.push_back(t); }
  std::sort(ms.begin(), ms.end()); return ms[5];
}

int main() {
  const int cp = 8, layers = 61, pages = 2048, per = pages / cp, local = per + 64;
  const int sizes[2] = {41984, 8448};
  const int buffers = 2 * layers, rows = cp * buffers;
  std::vector<void*> view(buffers), own((size_t) cp * buffers);
  long long total = 0;
  for (int b = 0; b < buffers; b++) { CK(cudaMalloc(&view[b], (size_t) pages * sizes[b % 2])); total += (long long) pages * sizes[b % 2]; }
  for (int o = 0; o < cp; o++) for (int b = 0; b < buffers; b++) CK(cudaMalloc(&own[o * buffers + b], (size_t) local * sizes[b % 2]));
  std::mt19937 rng(7);
  std::vector<long long> src, dst;  // per owner one list (shared by its rows)
  for (int o = 0; o < cp; o++) {
    std::vector<long long> l(local); for (int i = 0; i < local; i++) l[i] = i; std::shuffle(l.begin(), l.end(), rng);
    for (int k = 0; k < per; k++) { src.push_back(l[k]); dst.push_back(o + (long long) cp * k); }
  }
  std::vector<long long> meta, addrs(2 * rows);
  std::vector<int> items;
  for (int o = 0; o < cp; o++) for (int b = 0; b < buffers; b++) {
    int c = o * buffers + b; meta.push_back(sizes[b % 2] / 16); meta.push_back((long long) o * per); meta.push_back(per);
    addrs[c] = (long long) own[c]; addrs[rows + c] = (long long) view[b];
    for (int k = 0; k < per; k++) { items.push_back(c); items.push_back(k); }
  }
  int n = (int) (items.size() / 2);
  long long *dS, *dD, *dM, *dA; int* dI;
  CK(cudaMalloc(&dS, src.size() * 8)); CK(cudaMalloc(&dD, dst.size() * 8)); CK(cudaMalloc(&dM, meta.size() * 8)); CK(cudaMalloc(&dA, addrs.size() * 8));
  CK(cudaMalloc(&dI, items.size() * 4));
  cudaMemcpy(dS, src.data(), src.size() * 8, cudaMemcpyHostToDevice); cudaMemcpy(dD, dst.data(), dst.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dM, meta.data(), meta.size() * 8, cudaMemcpyHostToDevice); cudaMemcpy(dA, addrs.data(), addrs.size() * 8, cudaMemcpyHostToDevice);
  cudaMemcpy(dI, items.data(), items.size() * 4, cudaMemcpyHostToDevice);
  void *A, *B; CK(cudaMalloc(&A, total)); CK(cudaMalloc(&B, total));
  float dtod = timed([&] { cudaMemcpy(B, A, total, cudaMemcpyDeviceToDevice); });
  auto report = [&](const char* name, float ms) { printf("{\"name\":\"%s\",\"ms\":%.3f,\"vs_dtod\":%.3f}\n", name, ms, dtod / ms); };
  printf("{\"name\":\"setup\",\"rows\":%d,\"pairs_per_row\":%d,\"view_bytes\":%lld}\n", rows, per, total);
  report("dtod", dtod);
  for (int slices : {1, 2, 4}) { char nm[64]; snprintf(nm, 64, "v0_slices%d", slices);
    report(nm, timed([&] { v0<<<dim3(per * slices, rows), 128>>>(dA, dM, rows, dS, dD, slices); })); }
  report("v1_warp_k2", timed([&] { v1<2><<<(n * 32 + 255) / 256, 256>>>(dA, dM, rows, dS, dD, dI, n); }));
  report("v1_warp_k4", timed([&] { v1<4><<<(n * 32 + 255) / 256, 256>>>(dA, dM, rows, dS, dD, dI, n); }));
  report("v1_warp_k8", timed([&] { v1<8><<<(n * 32 + 255) / 256, 256>>>(dA, dM, rows, dS, dD, dI, n); }));
  for (int t : {128, 256, 512}) { char nm[64]; snprintf(nm, 64, "v2_block%d_k4", t);
    report(nm, timed([&] { v2<4><<<dim3(per, rows), t>>>(dA, dM, rows, dS, dD); })); }
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int g : {4, 8, 16}) for (int t : {256, 512}) { char nm[64]; snprintf(nm, 64, "v3_grid%dxSM_block%d_k4", g, t);
    report(nm, timed([&] { v3<4><<<g * sms, t>>>(dA, dM, rows, dS, dD, dI, n); })); }
  // correctness of the last variant on one page: owner 3, layer-0 MLA row, pair 5
  std::vector<char> x(sizes[0]), y(sizes[0]);
  cudaMemcpy(x.data(), (char*) own[3 * buffers] + src[3 * per + 5] * sizes[0], sizes[0], cudaMemcpyDeviceToHost);
  cudaMemcpy(y.data(), (char*) view[0] + dst[3 * per + 5] * sizes[0], sizes[0], cudaMemcpyDeviceToHost);
  printf("{\"name\":\"check\",\"ok\":%s,\"error\":\"%s\"}\n", x == y ? "true" : "false", cudaGetErrorString(cudaGetLastError()));
  return 0;
}

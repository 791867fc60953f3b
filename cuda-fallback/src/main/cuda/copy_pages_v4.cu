#include "copy_slice.cuh"

// Page copy with 16-byte accesses: for every pair p and KV component c,
// dst_c page dstPages[p] <- src_c page srcPages[p]. Up to 4 components (MLA latent, indexer pages),
// each with its own base addresses and page size in int4 units, passed by value.
// Launch: grid.x = pairs * slices (one block per slice of a page), grid.y = components,
// block = 128 threads; each thread keeps two 16-byte loads in flight before its stores.
// (bench/device/copy_variants.cu measured this shape at 0.97x a contiguous copy on the H200.)
extern "C" __global__ void copy_pages_v4(const int4* __restrict__ src0, int4* __restrict__ dst0, int vec0,
                                         const int4* __restrict__ src1, int4* __restrict__ dst1, int vec1,
                                         const int4* __restrict__ src2, int4* __restrict__ dst2, int vec2,
                                         const int4* __restrict__ src3, int4* __restrict__ dst3, int vec3,
                                         const long long* __restrict__ srcPages,
                                         const long long* __restrict__ dstPages,
                                         int slices) {
  const int c = blockIdx.y;
  const int4* __restrict__ src = c == 0 ? src0 : c == 1 ? src1 : c == 2 ? src2 : src3;
  int4* __restrict__ dst = c == 0 ? dst0 : c == 1 ? dst1 : c == 2 ? dst2 : dst3;
  const int vec = c == 0 ? vec0 : c == 1 ? vec1 : c == 2 ? vec2 : vec3;
  const long long p = blockIdx.x / slices;
  const int per = (vec + slices - 1) / slices;
  const int from = (blockIdx.x % slices) * per;
  const int to = min(vec, from + per);
  copy_slice(src + srcPages[p] * vec, dst + dstPages[p] * vec, from, to);
}

// A batch of page copies in one launch, for stores with one buffer per layer and component and for
// views gathered from several owners: row c copies pairs [offset, offset + count) of the page lists,
// from addrs[c] to addrs[rows + c]; meta[3c] = page size in int4 units, meta[3c + 1] = offset,
// meta[3c + 2] = count. Launch: grid.x = (largest count) * slices, grid.y = rows (up to 65535),
// block = 128 threads; blocks past their row's count return at once.
extern "C" __global__ void copy_pages_table_v4(const long long* __restrict__ addrs,
                                               const long long* __restrict__ meta, int rows,
                                               const long long* __restrict__ srcPages,
                                               const long long* __restrict__ dstPages,
                                               int slices) {
  const int c = blockIdx.y;
  const long long p = blockIdx.x / slices;
  if (p >= meta[3 * c + 2]) return;
  const int4* __restrict__ src = reinterpret_cast<const int4*>(addrs[c]);
  int4* __restrict__ dst = reinterpret_cast<int4*>(addrs[rows + c]);
  const int vec = (int) meta[3 * c];
  const long long at = meta[3 * c + 1] + p;
  const int per = (vec + slices - 1) / slices;
  const int from = (blockIdx.x % slices) * per;
  const int to = min(vec, from + per);
  copy_slice(src + srcPages[at] * vec, dst + dstPages[at] * vec, from, to);
}

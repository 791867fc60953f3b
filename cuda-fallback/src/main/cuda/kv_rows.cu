// KV rows between task-graph arrays and page buffers, in place on the device (contract §3.2, §3.3,
// §3.7): the write stage stores a chunk's computed rows into their owners' pages, and the
// attention step reads the keys it needs out of a view's pages. Little-endian bytes, the same as
// the host codecs (MlaRows, IndexRows, Bf16, Fp8E4m3), bit for bit.

__device__ __forceinline__ unsigned short bf16_bits(float v) {
  if (v != v) return 0x7FC0;
  unsigned int bits = __float_as_uint(v);
  return (unsigned short) ((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

__device__ __forceinline__ float bf16_value(const unsigned char* p) {
  return __uint_as_float(((unsigned int) p[0] | ((unsigned int) p[1] << 8)) << 16);
}

__device__ __forceinline__ float f32_at(const unsigned char* p) {
  return __uint_as_float((unsigned int) p[0] | ((unsigned int) p[1] << 8) | ((unsigned int) p[2] << 16) | ((unsigned int) p[3] << 24));
}

// fp8 e4m3 (fn): no infinities, 0x7F/0xFF NaN; exact in fp32.
__device__ __forceinline__ float fp8_value(unsigned char b) {
  const int e = (b >> 3) & 15;
  const int m = b & 7;
  if (e == 15 && m == 7) return __uint_as_float(0x7FC00000u);
  const float v = e == 0 ? ldexpf((float) m, -9) : ldexpf((float) (8 + m), e - 10);
  return (b & 0x80) ? -v : v;
}

// Row geometry: g[0] C, g[1] R, g[2] I, g[3] page size, g[4] MLA row bytes, g[5] scale offset,
// g[6] rope offset, g[7] fp8 (1) or bf16 (0).

// Stores rows: write w (one block each) puts token table[3w]'s row into store table[3w + 1] at
// row table[3w + 2]; store s's MLA buffer starts at table[3m + s], its indexer buffer at
// table[3m + stores + s]. fp8 rows take the latent codes and per-128 scales, bf16 rows the latent
// floats; rope is stored as bf16; index keys as codes and scales in the indexer page.
extern "C" __global__ void store_rows(const unsigned char* __restrict__ latentCodes, const float* __restrict__ latentScales,
                                      const float* __restrict__ latent, const float* __restrict__ rope,
                                      const unsigned char* __restrict__ indexCodes, const float* __restrict__ indexScales,
                                      const long long* __restrict__ table, int m, int stores, int c, int r, int dimI, int ps,
                                      int rowBytes, int scaleOff, int ropeOff, int fp8) {
  const long long w = blockIdx.x;
  const long long tok = table[3 * w];
  const int s = (int) table[3 * w + 1];
  const long long row = table[3 * w + 2];
  unsigned char* mla = reinterpret_cast<unsigned char*>(table[3LL * m + s]) + row * rowBytes;
  const int tilesC = (c + 127) / 128;
  for (int b = threadIdx.x; b < rowBytes; b += blockDim.x) {
    unsigned char v;
    if (b >= ropeOff) {
      const int k = b - ropeOff;
      const unsigned short h = bf16_bits(rope[tok * r + k / 2]);
      v = (unsigned char) (k % 2 == 0 ? h : h >> 8);
    } else if (!fp8) {
      const unsigned short h = bf16_bits(latent[tok * c + b / 2]);
      v = (unsigned char) (b % 2 == 0 ? h : h >> 8);
    } else if (b < scaleOff) {
      v = latentCodes[tok * c + b];
    } else {
      const int k = b - scaleOff;
      v = (unsigned char) (__float_as_uint(latentScales[tok * tilesC + k / 4]) >> (8 * (k % 4)));
    }
    mla[b] = v;
  }
  const int blocks = (dimI + 127) / 128;
  const long long pageBytes = (long long) ps * (dimI + 4 * blocks);
  unsigned char* page = reinterpret_cast<unsigned char*>(table[3LL * m + stores + s]) + (row / ps) * pageBytes;
  const int t = (int) (row % ps);
  for (int d = threadIdx.x; d < dimI; d += blockDim.x) {
    page[(long long) t * dimI + d] = indexCodes[tok * dimI + d];
  }
  for (int k = threadIdx.x; k < 4 * blocks; k += blockDim.x) {
    page[(long long) ps * dimI + 4LL * t * blocks + k] = (unsigned char) (__float_as_uint(indexScales[tok * blocks + k / 4]) >> (8 * (k % 4)));
  }
}

// Index keys of positions 0 .. keys-1 (one block each): key j lies at row j % ps of page
// pages[j / ps] of the indexer buffer; its codes go to codes[j·I ..], its scales to scales[j·⌈I/128⌉ ..].
extern "C" __global__ void index_keys(const unsigned char* __restrict__ index, const long long* __restrict__ pages, int keys,
                                      int ps, int dimI, unsigned char* __restrict__ codes, float* __restrict__ scales) {
  const long long j = blockIdx.x;
  const int blocks = (dimI + 127) / 128;
  const long long pageBytes = (long long) ps * (dimI + 4 * blocks);
  const unsigned char* page = index + pages[j / ps] * pageBytes;
  const int t = (int) (j % ps);
  for (int d = threadIdx.x; d < dimI; d += blockDim.x) {
    codes[j * dimI + d] = page[(long long) t * dimI + d];
  }
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    scales[j * blocks + b] = f32_at(page + (long long) ps * dimI + 4LL * (t * blocks + b));
  }
}

// Dequantised MLA keys (latent then rope, C+R floats) of n positions (one block each): row i is
// the key at position positions[i], row positions[i] % ps of page pages[positions[i] / ps].
extern "C" __global__ void key_rows(const unsigned char* __restrict__ mla, const long long* __restrict__ pages,
                                    const long long* __restrict__ positions, int c, int r, int ps, int rowBytes, int scaleOff,
                                    int ropeOff, int fp8, float* __restrict__ out) {
  const long long i = blockIdx.x;
  const long long j = positions[i];
  const unsigned char* row = mla + (pages[j / ps] * ps + j % ps) * (long long) rowBytes;
  const int width = c + r;
  for (int e = threadIdx.x; e < width; e += blockDim.x) {
    float v;
    if (e >= c) {
      v = bf16_value(row + ropeOff + 2 * (e - c));
    } else if (fp8) {
      v = fp8_value(row[e]) * f32_at(row + scaleOff + 4 * (e / 128));
    } else {
      v = bf16_value(row + 2 * e);
    }
    out[i * width + e] = v;
  }
}

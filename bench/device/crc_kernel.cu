// On the GPU machine: the page checksum kernel (cuda-fallback/src/main/cuda/crc32c.cu) alone,
// outside the JVM, over one CP8 rank's share of a 131,072-token request at DeepSeek V3.2's fp8
// widths (256 pages of 61 layers' buffers: a 41,984-byte MLA page and an 8,448-byte indexer page each):
// checksums only, and checksums while copying to a second pool, beside cudaMemcpy device to device
// of the same bytes; then the skip tables' copies (1, 8, 32) to show what bank conflicts cost, and
// the join of each page's checksums over the 122 buffers (crc32c_join) alone; then the loop's shapes
// (words a lane loads at a time, and whether the next ones load before the current ones are folded
// in), each checked to give the kernel's CRCs and copy. Median of 20 after 3, CUDA events. The CRCs
// and joined CRCs are checked against a host CRC32C of the same bytes.
// nvcc -arch=sm_90 -O3 -o /tmp/ck bench/device/crc_kernel.cu && /tmp/ck [pages 256] [layers 61]
#include "../../cuda-fallback/src/main/cuda/crc32c.cu"

#include "event_timing.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

/** The kernel's loop in another shape, for the comparison: UNROLL words a lane, AHEAD loading the next ones early. */
template <int UNROLL, bool AHEAD>
__global__ void __launch_bounds__(THREADS) crc32c_shape(const long long *table, int count, int pages, int copies) {
    checksumPages<UNROLL, AHEAD>(table, count, pages, copies);
}

static uint32_t host_crc_update(uint32_t c, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return c;
}

static uint32_t host_crc(const uint8_t *p, size_t n) { return host_crc_update(0xFFFFFFFFu, p, n) ^ 0xFFFFFFFFu; }

/** a(x) * b(x) mod p(x), reflected. */
static uint32_t host_mul(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (int i = 0; i < 32; i++) {
        if (a & (0x80000000u >> i)) product ^= b;
        b = (b & 1) ? (b >> 1) ^ 0x82F63B78u : b >> 1;
    }
    return product;
}

/** x^(8n) mod p(x), reflected: the register of x^0 pushed through n zero bytes. */
static uint32_t host_shift(long long n) {
    uint32_t c = 0x80000000u;
    for (long long i = 0; i < 8 * n; i++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    return c;
}

int main(int argc, char **argv) {
    const int pages = argc > 1 ? std::atoi(argv[1]) : 256;
    const int layers = argc > 2 ? std::atoi(argv[2]) : 61;
    const long long mla = 41984, index = 8448;
    const long long bytes = (long long) pages * layers * (mla + index);
    uint8_t *src, *dst;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    std::vector<uint8_t> host(bytes);
    std::mt19937_64 rng(7);
    for (long long i = 0; i < bytes; i += 8) *reinterpret_cast<uint64_t *>(&host[i]) = rng();
    CHECK(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice));
    // a buffer per layer and pool (MLA buffers, then indexer buffers), each of `pages` pages; the run is every page, in order
    const int count = layers * 2;
    std::vector<long long> table(4LL * count + 2LL * pages + ((long long) count * pages + pages + 1) / 2);
    std::vector<long long> base(count), size(count);
    long long at = 0;
    std::vector<uint8_t> zeros(mla, 0);
    const long long zm = host_crc(zeros.data(), mla), zi = host_crc(zeros.data(), index);
    const long long mm = host_shift(mla), mi = host_shift(index);
    for (int b = 0; b < count; b++) {
        size[b] = b < layers ? mla : index;
        base[b] = at;
        table[b] = reinterpret_cast<long long>(src) + at;
        table[count + b] = 0;
        table[2LL * count + b] = (b < layers ? zm : zi) << 32 | size[b];
        at += size[b] * pages;
    }
    uint32_t after = 0x80000000u;  // the join's multipliers: x^(8 * the bytes after each buffer's page)
    for (int b = count - 1; b >= 0; b--) {
        table[3LL * count + b] = after;
        after = host_mul(after, static_cast<uint32_t>(b < layers ? mm : mi));
    }
    for (int k = 0; k < pages; k++) table[4LL * count + k] = table[4LL * count + pages + k] = k;
    long long *dtable, *dcopy;
    CHECK(cudaMalloc(&dtable, table.size() * 8));
    CHECK(cudaMalloc(&dcopy, table.size() * 8));
    CHECK(cudaMemcpy(dtable, table.data(), table.size() * 8, cudaMemcpyHostToDevice));
    for (int b = 0; b < count; b++) table[count + b] = reinterpret_cast<long long>(dst) + base[b];
    CHECK(cudaMemcpy(dcopy, table.data(), table.size() * 8, cudaMemcpyHostToDevice));
    int sms, optin;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CHECK(cudaFuncSetAttribute(crc32c_pages, cudaFuncAttributeMaxDynamicSharedMemorySize, 32 * 4096));
    const int ranges = count * pages;
    const int blocks = std::min(sms, (ranges + 31) / 32);
    auto run = [&](long long *t, int copies) { crc32c_pages<<<blocks, 1024, copies * 4096>>>(t, count, pages, copies); };
    auto join = [&](long long *t) { crc32c_join<<<(pages + 7) / 8, 256>>>(t, count, pages); };
    run(dcopy, 32);
    join(dcopy);
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> crcs(ranges + pages);
    CHECK(cudaMemcpy(crcs.data(), dcopy + 4LL * count + 2LL * pages, (ranges + pages) * 4LL, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < ranges; r++) {
        const int b = r / pages, k = r % pages;
        if (r < 64 || r % 997 == 0) wrong += crcs[r] != host_crc(host.data() + base[b] + k * size[b], size[b]);
    }
    for (int k = 0; k < pages; k += 37) {  // page k's bytes of every buffer in turn
        uint32_t c = 0xFFFFFFFFu;
        for (int b = 0; b < count; b++) c = host_crc_update(c, host.data() + base[b] + k * size[b], size[b]);
        wrong += crcs[ranges + k] != (c ^ 0xFFFFFFFFu);
    }
    std::vector<uint8_t> back(bytes);
    CHECK(cudaMemcpy(back.data(), dst, bytes, cudaMemcpyDeviceToHost));
    const bool copied = back == host;
    const double crc_ms = median_ms([&] { run(dtable, 32); });
    const double copy_crc_ms = median_ms([&] { run(dcopy, 32); });
    const double memcpy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
    const double crc8_ms = median_ms([&] { run(dtable, 8); });
    const double crc1_ms = median_ms([&] { run(dtable, 1); });
    const double join_ms = median_ms([&] { join(dtable); });
    // the loop's shapes: each must give the same CRCs and copy as the kernel, then its times
    struct Shape { const char *name; void (*kernel)(const long long *, int, int, int); };
    const Shape shapes[] = {{"u4_ahead", crc32c_shape<4, true>}, {"u8", crc32c_shape<8, false>}, {"u8_ahead", crc32c_shape<8, true>},
                            {"u16", crc32c_shape<16, false>}, {"u16_ahead", crc32c_shape<16, true>}};
    std::string shapeJson;
    for (const Shape &shape : shapes) {
        CHECK(cudaFuncSetAttribute(shape.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 32 * 4096));
        auto launch = [&](long long *t) { shape.kernel<<<blocks, 1024, 32 * 4096>>>(t, count, pages, 32); };
        CHECK(cudaMemset(dst, 0, bytes));
        CHECK(cudaMemset(dcopy + 4LL * count + 2LL * pages, 0, ranges * 4LL));
        launch(dcopy);
        CHECK(cudaDeviceSynchronize());
        std::vector<uint32_t> mine(ranges);
        CHECK(cudaMemcpy(mine.data(), dcopy + 4LL * count + 2LL * pages, ranges * 4LL, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(back.data(), dst, bytes, cudaMemcpyDeviceToHost));
        const bool same = std::equal(mine.begin(), mine.end(), crcs.begin()) && back == host;
        wrong += !same;
        const double alone = median_ms([&] { launch(dtable); });
        const double copying = median_ms([&] { launch(dcopy); });
        char part[200];
        std::snprintf(part, sizeof part, "%s\"%s\":{\"same\":%s,\"crc_ms\":%.4f,\"copy_crc_ms\":%.4f,\"copy_crc_vs_memcpy\":%.3f}", shapeJson.empty() ? "" : ",",
                      shape.name, same ? "true" : "false", alone, copying, memcpy_ms / copying);
        shapeJson += part;
    }
    std::printf("{\"name\":\"crc_kernel\",\"pages\":%d,\"layers\":%d,\"bytes\":%lld,\"ranges\":%d,\"sms\":%d,\"optin_shared\":%d,\"crcs_checked_wrong\":%d,"
                "\"copy_equal\":%s,\"crc_ms\":%.4f,\"crc_gbps\":%.1f,\"copy_crc_ms\":%.4f,\"memcpy_dtod_ms\":%.4f,\"copy_crc_vs_memcpy\":%.3f,"
                "\"crc_copies8_ms\":%.4f,\"crc_copies1_ms\":%.4f,\"join_ms\":%.4f,\"shapes\":{%s}}\n",
                pages, layers, bytes, ranges, sms, optin, wrong, copied ? "true" : "false", crc_ms, bytes / (crc_ms * 1e6), copy_crc_ms, memcpy_ms,
                memcpy_ms / copy_crc_ms, crc8_ms, crc1_ms, join_ms, shapeJson.c_str());
    return wrong != 0 || !copied;
}

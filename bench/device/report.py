"""Turns the JSON lines of CudaCopyBench and torch_copy.py (one run, one machine) into the
markdown table of docs/benchmarks.md, with the ratios the cuda-fallback issue asks for."""
import json
import sys

PEAK = 4800.0  # GB/s, H200 HBM3e datasheet
rows = {}
device = "?"
for path in sys.argv[1:]:
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "device" in r:
            device = r["device"]
        else:
            rows[r["name"]] = r


def gb(name):
    return rows[name]["gbps"] if name in rows else float("nan")


print(f"Device: {device}\n")
print("| copy | bytes moved | median ms | GB/s | of HBM peak |")
print("|---|---|---|---|---|")
for name, r in rows.items():
    print(f"| {name} | {r['bytes']:,} | {r['median_ms']:.3f} | {r['gbps']:,.0f} | {100 * r['gbps'] / PEAK:.1f} % |")
print()
ratios = [
    ("gather MLA+index kernel vs contiguous cuMemcpyDtoD of the same bytes", gb("gather_mla_index_kernel") / gb("memcpy_dtod_same_bytes"), 0.95),
    ("gather MLA+index kernel vs torch index_select (same pages)", gb("gather_mla_index_kernel") / gb("torch_index_select_mla_index"), 1.1),
    ("gather MLA kernel vs torch index_select", gb("gather_mla_kernel") / gb("torch_index_select_mla"), 1.1),
    ("gather MLA+index whole call (checks + upload + launch + sync) vs cuMemcpyDtoD", gb("gather_mla_index") / gb("memcpy_dtod_same_bytes"), None),
    ("gather MLA+index whole call vs torch index_select", gb("gather_mla_index") / gb("torch_index_select_mla_index"), None),
    ("scatter MLA+index kernel vs torch index_copy_", gb("scatter_mla_index_kernel") / gb("torch_index_copy_mla_index"), None),
    ("contiguous cuMemcpyDtoD vs torch copy_", gb("memcpy_dtod_same_bytes") / gb("torch_copy_same_bytes"), None),
    ("D2H pages (kernel) vs one large pinned copy", gb("d2h_pages_kernel") / gb("memcpy_d2h_pinned_same_bytes"), 0.9),
    ("H2D pages (kernel) vs one large pinned copy", gb("h2d_pages_kernel") / gb("memcpy_h2d_pinned_same_bytes"), 0.9),
    ("D2H pages (DMA runs) vs one large pinned copy", gb("d2h_pages_dma") / gb("memcpy_d2h_pinned_same_bytes"), 0.9),
    ("H2D pages (DMA runs) vs one large pinned copy", gb("h2d_pages_dma") / gb("memcpy_h2d_pinned_same_bytes"), 0.9),
]
print("| ratio | value | target | met |")
print("|---|---|---|---|")
for label, value, target in ratios:
    met = "" if target is None else ("yes" if value >= target else "no")
    print(f"| {label} | {value:.3f} | {'' if target is None else f'>= {target}'} | {met} |")

#!/usr/bin/env bash
# On the GPU machine's host (16 cores; the GPU is not used): UcxTransferBench 2048 61 8 3, a
# 131,072-token CP8 request's pages at DeepSeek V3.2's fp8 widths sent to decode processes on this
# host by the ucx engine and by the tcp engine, against jucx's own puts of the same bytes, in one
# run; writes $OUT/transfer-engines.jsonl and $OUT/transfer-engines.json (date, machine, command,
# figures) for bench/results/. That machine has no UCX: pack.sh puts Debian 12's libucx0 and what it
# needs into .device/debs, unpacked here into /tmp/ucx. Expects the unpacked runtime at $KVFLOW_DEVICE
# (default /tmp/d/device).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
mkdir -p /tmp/ucx
for deb in "${KVFLOW_TEST_JARS:-.device}"/debs/*.deb; do dpkg -x "$deb" /tmp/ucx; done
export LD_LIBRARY_PATH=/tmp/ucx/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} UCX_LOG_LEVEL=error
JAVA_OPTS="-Xmx24g" "$device/run.sh" org.kvflow.bench.UcxTransferBench "${PAGES:-2048}" "${LAYERS:-61}" 8 "${RUNS:-3}" 2>&1 | grep '^{' \
  | tee "$out/transfer-engines.jsonl"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
python3 - "$out" "$(nproc) host cores" "${gpu:-GPU}" <<'PY'
import json, sys, os, datetime, statistics
out, cores, gpu = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(os.path.join(out, "transfer-engines.jsonl")) if l.startswith("{")]
def med(key):
    return round(statistics.median(r[key] for r in rows), 3)
figures = {"ucx_host_vs_raw_put": med("ucx_host_vs_raw_put"), "ucx_over_tcp_backend": med("ucx_over_tcp_backend"),
           "ucx_gbps": med("ucx_gbps"), "tcp_gbps": med("tcp_gbps"), "raw_put_gbps": med("raw_put_gbps"),
           "ucx_ready_after_last_page_ms": med("ucx_ready_after_last_page_ms"),
           "tcp_ready_after_last_page_ms": med("tcp_ready_after_last_page_ms"),
           "bytes": rows[0]["bytes"], "runs": len(rows)}
record = {"date": datetime.date.today().isoformat(), "machine": gpu + " machine's host, " + cores + ", loopback",
          "command": "bench/device/transfer-engines.sh", "figures": figures, "runs": rows}
json.dump(record, open(os.path.join(out, "transfer-engines.json"), "w"), indent=2)
print(json.dumps(figures))
PY

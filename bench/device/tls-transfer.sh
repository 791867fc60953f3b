#!/usr/bin/env bash
# On the GPU machine's host (16 cores; no GPU needed): the PD transfer over mutual TLS against JSSE
# sockets of the same certificates, protocols and cipher suites copying the same bytes in the same
# frames (TcpTransferBench 10000 5 1 TLS_DIR; then the pages split over 4 CP ranks, each on its own
# connection, against as many TLS sockets, TcpTransferBench 10000 3 4 TLS_DIR), with the transfer on
# BoringSSL (the default) and on the JDK's TLS (-Dkvflow.transfer.tls=jdk), the two alternated over
# two rounds; then the same transfer without TLS (TcpTransferBench 10000 3) for what TLS costs (its
# GB/s, from another JVM, not a same-run ratio). The certificates are the repository's test-only
# ones for 127.0.0.1 (dsl/src/test/resources/tls). Each ratio from one run, against the baseline
# timed before and after it.
# Writes $OUT/tls-transfer.jsonl and $OUT/tls-transfer.json (date, machine, command, figures: the
# lowest ratio of the runs). Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
certs=$(cd "$here/../../dsl/src/test/resources/tls" && pwd)
pages=${TLS_BENCH_PAGES:-10000} # fewer for a quick check of the script elsewhere
# run TAG EXTRA-JVM-FLAGS MAIN ARGS...: one JVM, its JSON lines tagged with the bench's name
run() {
  local tag=$1 flags=$2; shift 2
  JAVA_OPTS="-Xms12g -Xmx12g -XX:+AlwaysPreTouch $flags" "$device/run.sh" "$@" 2>&1 | grep '^{' \
    | sed "s/^{/{\"bench\":\"$tag\",/" | tee -a "$out/tls-transfer.jsonl"
}
: > "$out/tls-transfer.jsonl"
for round in 1 2; do
  run boringssl "" org.kvflow.bench.TcpTransferBench "$pages" 5 1 "$certs"
  run jdk -Dkvflow.transfer.tls=jdk org.kvflow.bench.TcpTransferBench "$pages" 5 1 "$certs"
done
run boringssl4 "" org.kvflow.bench.TcpTransferBench "$pages" 3 4 "$certs"
run jdk4 -Dkvflow.transfer.tls=jdk org.kvflow.bench.TcpTransferBench "$pages" 3 4 "$certs"
run plain "" org.kvflow.bench.TcpTransferBench "$pages" 3
python3 - "$out" "$(nproc) host cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo no GPU) machine" <<'PY'
import json, sys, os, datetime
out, machine = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(os.path.join(out, "tls-transfer.jsonl")) if l.startswith("{")]
benches = ("boringssl", "jdk", "boringssl4", "jdk4", "plain")
runs = lambda bench: [r for r in rows if r["bench"] == bench and "ratio" in r]
figures = {
    "tls_boringssl_vs_jsse_socket": min(r["ratio"] for r in runs("boringssl")),
    "tls_jdk_vs_jsse_socket": min(r["ratio"] for r in runs("jdk")),
    "tls_boringssl_4_ranks_vs_jsse_sockets": min(r["ratio"] for r in runs("boringssl4")),
    "tls_jdk_4_ranks_vs_jsse_sockets": min(r["ratio"] for r in runs("jdk4")),
}
record = {"date": datetime.date.today().isoformat(), "machine": machine, "command": "bench/device/tls-transfer.sh", "figures": figures,
          "runs": {b: [r["ratio"] for r in runs(b)] for b in benches},
          "kvflow_and_baseline_before_after_gbps": {b: [[r["kvflowGBps"], r["plainBeforeGBps"], r["plainAfterGBps"]] for r in runs(b)]
                                                    for b in benches},
          "baseline_sessions": sorted({r["plainSocketSession"] for r in rows if r.get("name") == "tls"})}
json.dump(record, open(os.path.join(out, "tls-transfer.json"), "w"), indent=2)
print(json.dumps(record, indent=2))
PY

#!/usr/bin/env bash
# On the GPU machine's host (16 cores; no GPU needed): the PD transfer over TCP against a plain
# socket (TcpTransferBench 20000 5; then the pages split over 4 and 8 CP ranks, each on its own
# connection, against as many plain sockets), the HiCache journal against FileChannel (JournalBench, 640
# pages of DeepSeek V3.2 fp8, three runs), and (on the GPU) a 100K-token prefix of all 61 layers
# restored from the journal into CP8 device pools against the disk read and a pinned host->device
# copy of the same bytes (PrefixRestoreBench, three runs, warm and cold), each ratio from one run
# with its same-run baselines (the tcp transfer and the cold replay each timed between two baseline
# passes and set against their mean time).
# Writes $OUT/io-speed.jsonl and $OUT/io-speed.json (date, machine, command, figures: the lowest
# ratio of the runs, as bench/results/io-speed.json keeps them). Expects the unpacked runtime at
# $KVFLOW_DEVICE (default /tmp/d/device).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
# the heap is sized and touched up front, as a server JVM runs: the first replay then does not pay for growing it
run() { JAVA_OPTS="-Xms12g -Xmx12g -XX:+AlwaysPreTouch" "$device/run.sh" "$@" 2>&1 | grep '^{'; }
run org.kvflow.bench.TcpTransferBench 20000 5 | sed 's/^{/{"bench":"tcp",/' | tee "$out/io-speed.jsonl"
for ranks in 4 8; do # one connection per CP rank, against as many plain sockets
  run org.kvflow.bench.TcpTransferBench 20000 3 $ranks | sed "s/^{/{\"bench\":\"tcp$ranks\",/" | tee -a "$out/io-speed.jsonl"
done
rm -rf /tmp/journal-bench
run org.kvflow.bench.JournalBench /tmp/journal-bench 640 | sed 's/^{/{"bench":"journal",/' | tee -a "$out/io-speed.jsonl"
rm -rf /tmp/journal-bench
run org.kvflow.bench.PrefixRestoreBench /tmp/prefix-restore 1563 3 16 4 | sed 's/^{/{"bench":"restore",/' | tee -a "$out/io-speed.jsonl"
rm -rf /tmp/prefix-restore
python3 - "$out" "$(nproc) host cores, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || echo no GPU) machine" <<'PY'
import json, sys, os, datetime
out, machine = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(os.path.join(out, "io-speed.jsonl")) if l.startswith("{")]
def ratios(bench, name=None):
    return [r["ratio"] for r in rows if r["bench"] == bench and "ratio" in r and (name is None or r.get("name") == name)]
lowest = lambda v: min(v) if v else None  # cold replay is skipped where the page cache cannot be dropped
figures = {
    "tcp_vs_socket": lowest(ratios("tcp")),
    "journal_append_vs_filechannel": lowest(ratios("journal", "append")),
    "journal_replay_warm_vs_filechannel": lowest(ratios("journal", "replay_warm")),
    "journal_replay_cold_vs_filechannel": lowest(ratios("journal", "replay_cold")),
    "prefix_restore_vs_slower_bound": lowest(ratios("restore")),
}
runs = {"tcp": ratios("tcp"), "journal_append": ratios("journal", "append"), "journal_replay_warm": ratios("journal", "replay_warm"),
        "journal_replay_cold": ratios("journal", "replay_cold"), "prefix_restore_warm": ratios("restore", "restore_warm"),
        "prefix_restore_cold": ratios("restore", "restore_cold"), "tcp_4_ranks": ratios("tcp4"), "tcp_8_ranks": ratios("tcp8")}
record = {"date": datetime.date.today().isoformat(), "machine": machine, "command": "bench/device/io-speed.sh", "figures": figures,
          "runs": runs,
          "prefix_restore": [r for r in rows if r["bench"] == "restore" and r.get("name") in ("setup", "recompute_rows", "check")],
          "tcp_gbps": {b: [[r["kvflowGBps"], r["plainSocketGBps"]] for r in rows if r["bench"] == b and "ratio" in r] for b in ("tcp", "tcp4", "tcp8")},
          "tcp_plain_before_after_gbps": {b: [[r["plainBeforeGBps"], r["plainAfterGBps"]] for r in rows if r["bench"] == b and "ratio" in r]
                                          for b in ("tcp", "tcp4", "tcp8")},
          "journal_cold_baseline_before_after_mbps": [[r["fileChannelMBpsBefore"], r["fileChannelMBpsAfter"]] for r in rows
                                                      if r["bench"] == "journal" and r.get("name") == "replay_cold_baselines"]}
json.dump(record, open(os.path.join(out, "io-speed.json"), "w"), indent=2)
print(json.dumps(record, indent=2))
PY

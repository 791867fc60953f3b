#!/usr/bin/env bash
# On the GPU machine's host (no GPU used): a same-run A/B of the journal append and the tcp
# transfer, this checkout's jars against the jars of an earlier commit put first on the class path
# (OLD_JARS: a folder holding that commit's kvflow-journal and kvflow-transport-tcp jars), the two
# alternated twice: TcpTransferBench 20000 3 with one and with four ranks, JournalBench 640 pages.
# A change to either path is kept only when this shows it; the ratios' spread between runs of one
# jar is the noise to beat. Writes $OUT/io-ab.jsonl, one line per run, tagged with the jars used.
# Usage: io-ab.sh OLD_JARS
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
old=$(cd "${1:?usage: io-ab.sh OLD_JARS}" && pwd)
bench() { # bench JARS NAME MAIN ARGS...: one program, its JSON lines tagged
  local cp="$device/lib/*" jars=$1 name=$2
  shift 2
  [ "$jars" = old ] && cp="$old/*:$cp"
  "$device/jre/bin/java" @"$device/jvm.args" -Xms12g -Xmx12g -XX:+AlwaysPreTouch -cp "$cp" "$@" 2>&1 | grep '^{' \
    | sed "s/^{/{\"bench\":\"$name\",\"jars\":\"$jars\",/" | tee -a "$out/io-ab.jsonl"
}
for round in 1 2; do
  for jars in old new; do
    bench $jars tcp org.kvflow.bench.TcpTransferBench 20000 3
    bench $jars tcp4 org.kvflow.bench.TcpTransferBench 20000 3 4
    rm -rf /tmp/journal-bench
    bench $jars journal org.kvflow.bench.JournalBench /tmp/journal-bench 640
  done
done
rm -rf /tmp/journal-bench

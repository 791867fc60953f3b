#!/usr/bin/env bash
# On the GPU machine, D51's open question: which native library handles the signals the JVM faults
# with (SIGSEGV, SIGBUS, SIGFPE, SIGILL) once NVIDIA's OpenCL driver or CUDA's is loaded, and whether
# the JVM then survives safepoints: SafepointStress with each backend, $RUNS times (default 3) without
# and with the JDK's signal chaining (the handler report is read without it: under libjsig the JVM
# reports the handler it chains to). Then the GPU test classes that crashed one G1 JVM on 2026-12-01
# (D23: page memory and pipeline tests together), under G1 with signal chaining and, with
# G1_BARE=1, without it. Expects the unpacked runtime at $KVFLOW_DEVICE (default /tmp/d/device) and
# the test jars of bench/device/pack.sh in $KVFLOW_TEST_JARS (default .device). Writes
# $OUT/signals.txt and $OUT/tests-g1*.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup.sh
. "$here/setup.sh"
jsig="$device/jre/lib/libjsig.so"
unset LD_PRELOAD
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/signals.txt"
stress() { "$device/jre/bin/java" @"$device/jvm.args" -Xmx2g "$crash" -cp "$device/lib/*" org.kvflow.bench.SafepointStress "$1" 2>&1 | grep -v "WARN\|^Dec \|INFO:\|SignalChaining"; }
for backend in opencl cuda; do
  for chained in no yes; do
    for i in $(seq "${RUNS:-3}"); do
      preload=""
      [ "$chained" = yes ] && preload=$jsig
      rc=0
      text=$(LD_PRELOAD=$preload stress "$backend") || rc=$?
      echo "$backend libjsig=$chained run $i: exit $rc, $(echo "$text" | grep -c survived) survived" | tee -a "$out/signals.txt"
      [ "$i" = 1 ] && [ "$chained" = no ] && echo "$text" | grep "^handler\|^selected" | tee -a "$out/signals.txt"
    done
  done
done
classes=(cuda.CudaPageMemoryGpuTest cuda.CudaPageStoreGpuTest cuda.CudaInPlaceRowsGpuTest operators.pipeline.DeviceResidentPoolsGpuTest
  operators.pipeline.DevicePipelineLifecycleGpuTest kernels.nsa.TopKRowsTest kernels.nsa.IndexScorerTest cuda.graph.CudaTaskGraphGpuTest)
export TEST_JVM_FLAGS="-XX:-UseParallelGC -XX:+UseG1GC"
for chained in yes ${G1_BARE:+no}; do
  echo "G1, libjsig=$chained:" | tee -a "$out/signals.txt"
  if [ "$chained" = yes ]; then export LD_PRELOAD=$jsig; else unset LD_PRELOAD; fi
  cuda_tests "${classes[@]}" | tee -a "$out/signals.txt"
  mv "$out/tests.txt" "$out/tests-g1-libjsig-$chained.txt"
done

# Sourced by the bench/device scripts on the GPU machine: the unpacked runtime ($device, from
# $KVFLOW_DEVICE, default /tmp/d/device), the test jars of pack.sh ($jars, from $KVFLOW_TEST_JARS,
# default .device; empty when absent), the output folder ($out, from $OUT, created, absolute), the
# JVM flag that puts crash logs there ($crash), the JDK's signal chaining preloaded, NVIDIA's OpenCL
# driver and CUDA's tools on the path, and cuda_tests (below).
device=${KVFLOW_DEVICE:-/tmp/d/device}
jars=$(cd "${KVFLOW_TEST_JARS:-.device}" 2>/dev/null && pwd || true)
out=${OUT:-bench-out}
mkdir -p "$out" /tmp/icd
out=$(cd "$out" && pwd)
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd PATH=$PATH:/usr/local/cuda/bin
crash="-XX:ErrorFile=$out/hs_err_%p.log"
# the JDK's signal chaining for every JVM started here: an OpenCL or CUDA library that installs its own
# handlers for SIGSEGV and the like then cannot take the JVM's (D51); other programs pass through it
if [ -f "$device/jre/lib/libjsig.so" ]; then
  export LD_PRELOAD="$device/jre/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}"
fi

# cuda_tests CLASS...: the JUnit classes named (without the org.kvflow. prefix) on the cuda device
# (-Dkvflow.test.device=cuda) into $out/tests.txt; prints the failures, the summary and the JVM's
# exit code when it is not 0. Extra JVM flags (a collector, say) come from $TEST_JVM_FLAGS.
cuda_tests() {
  local selectors=() c
  for c in "$@"; do selectors+=(--select-class "org.kvflow.$c"); done
  (cd /tmp && "$device/jre/bin/java" @"$device/jvm.args" -Xmx24g "$crash" ${TEST_JVM_FLAGS:-} -Dkvflow.test.device=cuda -cp "$device/lib/*:$jars/*" \
    org.junit.platform.console.ConsoleLauncher execute "${selectors[@]}" --details=tree --disable-banner || echo "test JVM exit code $?") 2>&1 \
    | grep -v "WARNING\|^Dec \|INFO:" > "$out/tests.txt" || true
  grep -E "tests (successful|failed|skipped|aborted)|✘|MethodSource" "$out/tests.txt" | grep -v "✔" | head -40 || true
  tail -15 "$out/tests.txt"
}

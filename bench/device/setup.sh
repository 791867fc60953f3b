# Sourced by the bench/device scripts on the GPU machine: the unpacked runtime ($device, from
# $KVFLOW_DEVICE, default /tmp/d/device), the test jars of pack.sh ($jars, from $KVFLOW_TEST_JARS,
# default .device; empty when absent), the output folder ($out, from $OUT, created, absolute), and
# NVIDIA's OpenCL driver and CUDA's tools on the path.
device=${KVFLOW_DEVICE:-/tmp/d/device}
jars=$(cd "${KVFLOW_TEST_JARS:-.device}" 2>/dev/null && pwd || true)
out=${OUT:-bench-out}
mkdir -p "$out" /tmp/icd
out=$(cd "$out" && pwd)
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd PATH=$PATH:/usr/local/cuda/bin

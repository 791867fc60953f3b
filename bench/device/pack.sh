#!/usr/bin/env bash
# Here (not on the GPU machine): everything the bench/device scripts need there, into .device/
# (git-ignored; name it in the device tool's carry), from this repository alone: the modules built,
# the packed runtime (runtime.sh: device.tar.xz), and the test jars of tornado-kernels, cuda-fallback, journal,
# operators, dsl, ranks, deepseek-v32, transport-tcp and transport-cuda-ipc with the JUnit console launcher, AssertJ, reactor-test and Byte Buddy for the GPU tests,
# and Debian's UCX packages for transfer-engines.sh.
# Usage: bench/device/pack.sh [-o] (-o: Maven offline).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
offline=""
[ "${1:-}" = "-o" ] && offline="-o"
cd "$root"
mvn -B -q $offline install -DskipTests
bash "$root/bench/device/runtime.sh" $offline
mvn -B -q $offline jar:test-jar -pl tornado-kernels,cuda-fallback,journal,operators,dsl,ranks,deepseek-v32,transport-tcp,transport-cuda-ipc
cp pages/target/kvflow-pages-*-tests.jar .device/pages-tests.jar
cp tornado-kernels/target/kvflow-tornado-kernels-*-tests.jar .device/kernels-tests.jar
cp cuda-fallback/target/kvflow-cuda-fallback-*-tests.jar .device/cuda-tests.jar
cp journal/target/kvflow-journal-*-tests.jar .device/journal-tests.jar
cp operators/target/kvflow-operators-*-tests.jar .device/operators-tests.jar
cp dsl/target/kvflow-dsl-*-tests.jar .device/dsl-tests.jar
cp ranks/target/kvflow-ranks-*-tests.jar .device/ranks-tests.jar
cp deepseek-v32/target/kvflow-deepseek-v32-*-tests.jar .device/deepseek-v32-tests.jar
cp transport-tcp/target/kvflow-transport-tcp-*-tests.jar .device/transport-tcp-tests.jar
cp transport-cuda-ipc/target/kvflow-transport-cuda-ipc-*-tests.jar .device/cuda-ipc-tests.jar
for artifact in org.junit.platform:junit-platform-console-standalone:1.14.4 org.assertj:assertj-core:3.27.7 \
    io.projectreactor:reactor-test:3.8.7 net.bytebuddy:byte-buddy:1.18.3; do
  mvn -B -q $offline dependency:copy -Dartifact="$artifact" -DoutputDirectory=.device
done
# UCX for transfer-engines.sh: that machine has none (Debian 12's libucx0 and what it loads)
mkdir -p .device/debs
(cd .device/debs && apt-get download libucx0 libibverbs1 librdmacm1 libnuma1 > /dev/null 2>&1) || echo "pack: no UCX packages (transfer-engines.sh will not run)" >&2
ls -la .device

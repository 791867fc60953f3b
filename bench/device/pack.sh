#!/usr/bin/env bash
# Here (not on the GPU machine): builds what bench/device/cuda-taskgraph.sh and page-store.sh run there, into .device/
# (git-ignored, name it in the device tool's carry): device.tar.xz, the packed runtime (a jlink'd JRE
# with jdk.compiler, so the kernel-editing test can compile, and the runtime jars), and the test jars
# with the JUnit console launcher and AssertJ. Usage: bench/device/pack.sh PATH/TO/device-jre.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
jre_tool=${1:?usage: bench/device/pack.sh PATH/TO/device-jre.sh}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
cd "$root"
"$jre_tool" -z -m java.base,java.compiler,java.logging,java.management,java.naming,java.sql,jdk.crypto.ec,jdk.management,jdk.unsupported,jdk.compiler,jdk.zipfs,jdk.jfr "$root"
# the bench module's shaded jar repeats every dependency with all their natives (53 MB): ship its plain jar
rm -f target/device/lib/benchmarks.jar
cp bench/target/kvflow-bench-*-SNAPSHOT.jar target/device/lib/
mkdir -p .device
rm -f target/device.tar.xz  # packed before the swap above: pack again
tar -C target -cf - device | xz -T0 -6 > .device/device.tar.xz
mvn -B -q -o test-compile jar:test-jar -pl tornado-kernels,cuda-fallback,operators -DskipTests
cp tornado-kernels/target/kvflow-tornado-kernels-*-tests.jar .device/kernels-tests.jar
cp cuda-fallback/target/kvflow-cuda-fallback-*-tests.jar .device/cuda-tests.jar
cp operators/target/kvflow-operators-*-tests.jar .device/operators-tests.jar
mvn -B -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 -DoutputDirectory=.device
mvn -B -q dependency:copy -Dartifact=org.assertj:assertj-core:3.27.7 -DoutputDirectory=.device
mvn -B -q dependency:copy -Dartifact=io.projectreactor:reactor-test:3.8.7 -DoutputDirectory=.device
ls -la .device

#!/usr/bin/env bash
# Here (not on the GPU machine, which has no Java): builds, from this repository alone, the runtime
# the bench/device scripts run there, and packs it as .device/device.tar.xz (git-ignored; name
# .device in the device tool's carry). Unpacked (`tar -C /tmp/d -xJf .device/device.tar.xz`) it is
# /tmp/d/device with:
#   jre/      a JRE made by jlink from $JAVA_HOME (JDK 25) with the modules listed below
#   lib/      the runtime jars of the CLI (samples) and the benches (bench), kvflow's own included
#   jvm.args  the repository's jvm.args
#   run.sh    run.sh MAIN-CLASS [ARGS...], extra JVM flags in JAVA_OPTS
# Usage: bench/device/runtime.sh [-o] (-o: Maven offline). Needs the modules built (mvn install).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
jdk=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
offline=""
[ "${1:-}" = "-o" ] && offline="-o"
# what the CLI, the benches and the GPU tests use: jdk.compiler for the kernel-editing test, jdk.jfr
# for demo-profile.sh, jdk.httpserver for --metrics-port, jdk.unsupported and java.management for Chronicle and Netty
modules=java.base,java.compiler,java.logging,java.management,java.naming,java.sql,jdk.crypto.ec,jdk.management,jdk.unsupported,jdk.compiler,jdk.zipfs,jdk.jfr,jdk.httpserver
out="$root/target/device"
rm -rf "$out"
mkdir -p "$out/lib" "$root/.device"
cd "$root"
for module in samples bench; do
  mvn -B -q $offline dependency:copy-dependencies -pl "$module" -DincludeScope=runtime -DoutputDirectory="$out/lib" >&2
done
cp samples/target/kvflow-cli.jar bench/target/kvflow-bench-*-SNAPSHOT.jar "$out/lib/"
# natives for other platforms, and JCuda's PTX compiler (kernels come as fatbins), are dead weight there
python3 - "$out/lib" <<'PY'
import os, re, sys, zipfile
lib = sys.argv[1]
drop = {
    "aparapi-jni": re.compile(r"^(win|mac|osx|darwin)/|^linux/.*(arm|aarch64|x86\.so|_x86\.so)", re.I),
    "jcuda-natives": re.compile(r"JNvPTXCompiler|JNvrtc"),
    "jffi": re.compile(r"^jni/(?!x86_64-Linux/)"),
}
for name in os.listdir(lib):
    rule = next((r for prefix, r in drop.items() if name.startswith(prefix)), None)
    if rule is None:
        continue
    path = os.path.join(lib, name)
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(path + ".slim", "w", zipfile.ZIP_DEFLATED) as dst:
        for entry in src.infolist():
            if not rule.search(entry.filename):
                dst.writestr(entry, src.read(entry.filename))
    os.replace(path + ".slim", path)
PY
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --output "$out/jre"
cp jvm.args "$out/jvm.args"
# every GPU figure so far was measured with the parallel collector; under G1 the GPU tests crashed
# the JVM (SIGSEGV, no error report) on 2026-12-01, which is still to be understood (D51 names a suspect)
printf '%s\n' '# the GPU machine: the parallel collector (see bench/device/runtime.sh)' '-XX:+UseParallelGC' >> "$out/jvm.args"
cat > "$out/run.sh" <<'SH'
#!/bin/sh
# run.sh MAIN-CLASS [ARGS...]: the packed JRE with the repository's JVM flags and every jar of lib/
here=$(cd "$(dirname "$0")" && pwd)
# the JDK's signal chaining, so a native library that installs signal handlers cannot take the JVM's (D51)
# (once: bench/device/setup.sh may have preloaded it already)
case ":${LD_PRELOAD:-}:" in
  *":$here/jre/lib/libjsig.so:"*) ;;
  *) export LD_PRELOAD="$here/jre/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}" ;;
esac
exec "$here/jre/bin/java" @"$here/jvm.args" $JAVA_OPTS -cp "$here/lib/*" "$@"
SH
chmod +x "$out/run.sh"
tar -C "$root/target" -cf - device | xz -T0 -6 > "$root/.device/device.tar.xz"
echo "runtime: $(du -m "$root/.device/device.tar.xz" | cut -f1) MiB packed, $(ls "$out/lib" | wc -l) jars" >&2

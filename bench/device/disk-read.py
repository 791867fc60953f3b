#!/usr/bin/env python3
# On the GPU machine's host: how fast its disk gives a 2 GiB file to a reader whose page cache was
# dropped, by reader threads and read size (three rounds, the variants alternated), to tell the
# disk's own spread from the journal's when a cold replay ratio moves. Needs root (drop_caches).
# Usage: python3 bench/device/disk-read.py [DIR] (default /tmp); prints MB/s per variant and round.
import os, sys, time, threading
path = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "/tmp", "disk-read.bin")
size = 2 << 30
chunk = 8 << 20
if not os.path.exists(path) or os.path.getsize(path) != size:
    buf = os.urandom(chunk)
    with open(path, "wb") as f:
        for _ in range(size // chunk):
            f.write(buf)
    os.sync()
def drop():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
def reader(fd, start, step, cs):
    b = bytearray(cs)
    m = memoryview(b)
    off = start
    while off < size:
        os.preadv(fd, [m], off)
        off += step
def run(threads, cs):
    fd = os.open(path, os.O_RDONLY)
    t0 = time.time()
    ts = [threading.Thread(target=reader, args=(fd, i * cs, threads * cs, cs)) for i in range(threads)]
    for t in ts: t.start()
    for t in ts: t.join()
    dt = time.time() - t0
    os.close(fd)
    return size / dt / 1e6
variants = [(1, 8 << 20), (2, 8 << 20), (4, 8 << 20), (8, 8 << 20), (4, 2 << 20), (16, 1 << 20)]
for rnd in range(3):
    for th, cs in variants:
        drop()
        print(f"round {rnd} threads {th} chunk {cs>>20} MiB: {run(th, cs):.0f} MB/s", flush=True)
os.remove(path)

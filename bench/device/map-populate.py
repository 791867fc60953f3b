#!/usr/bin/env python3
# On the GPU machine's host: how fast the kernel faults in a fresh 2 GiB map of a file for writing
# (madvise(MADV_POPULATE_WRITE) in 4 MiB pieces, by one, two, four and eight threads side by side),
# against one thread write()-ing the same bytes in records of 1.5 MB, and how fast one thread then
# copies records into the map once it is faulted in; three rounds, the variants alternated. This is
# what sized the journal's prefault (D29 in docs/decisions.md).
# Usage: python3 bench/device/map-populate.py [DIR] (default /tmp); prints MB/s per variant and round.
import ctypes, os, sys, time, threading
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
PROT_READ_WRITE, MAP_SHARED, MADV_POPULATE_WRITE = 3, 1, 23
size = 2 << 30
piece = 4 << 20
path = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "/tmp", "map-populate.bin")
record = os.urandom(1540096)  # the journal bench's average record


def fresh():
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)


def write_one_thread():
    fd = fresh()
    start = time.time()
    written = 0
    while written < size:
        written += os.write(fd, record)
    elapsed = time.time() - start
    os.close(fd)
    return written / elapsed / 1e6


def populate(threads, then_copy=False):
    fd = fresh()
    os.ftruncate(fd, size)
    address = libc.mmap(None, size, PROT_READ_WRITE, MAP_SHARED, fd, 0)

    def work(first):
        for offset in range(first * piece, size, threads * piece):
            if libc.madvise(address + offset, piece, MADV_POPULATE_WRITE) != 0:
                raise OSError(ctypes.get_errno(), "madvise(MADV_POPULATE_WRITE)")

    start = time.time()
    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    faulted = size / (time.time() - start) / 1e6
    copied = 0.0
    if then_copy:
        source = ctypes.create_string_buffer(record)
        start = time.time()
        offset = 0
        while offset + len(record) <= size:
            ctypes.memmove(address + offset, source, len(record))
            offset += len(record)
        copied = offset / (time.time() - start) / 1e6
    libc.munmap(address, size)
    os.close(fd)
    return faulted, copied


def clean():
    os.remove(path)
    os.sync()


for rnd in range(3):
    print(f"round {rnd} write() 1 thread: {write_one_thread():.0f} MB/s", flush=True)
    clean()
    for threads in (1, 2, 4, 8):
        faulted, _ = populate(threads)
        print(f"round {rnd} populate {threads} threads: {faulted:.0f} MB/s", flush=True)
        clean()
    faulted, copied = populate(4, then_copy=True)
    print(f"round {rnd} populate 4 threads then one thread copies into the map: populate {faulted:.0f}, copy {copied:.0f} MB/s", flush=True)
    clean()

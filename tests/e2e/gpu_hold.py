#!/usr/bin/env python3
"""Holds all but LEAVE_MB MiB of GPU 0's free memory until killed (for tests/e2e/run faults).

usage: gpu_hold.py LEAVE_MB
Prints "held N MiB, M MiB free" once it holds the memory, or "failed: ..." and exits 1. Talks to the CUDA
driver (libcuda) through ctypes: the GPU machine has no CUDA Python packages.
"""
import ctypes
import signal
import sys

CHUNK = 64 << 20


def main():
    leave = int(sys.argv[1]) << 20
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return fail(f"no CUDA driver ({e})")

    def call(name, *args):
        rc = getattr(cuda, name)(*args)
        if rc != 0:
            raise RuntimeError(f"{name}: CUDA error {rc}")

    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    held = []
    try:
        call("cuInit", 0)
        call("cuDeviceGet", ctypes.byref(dev), 0)
        call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
        call("cuCtxSetCurrent", ctx)
        call("cuMemGetInfo_v2", ctypes.byref(free), ctypes.byref(total))
        # in chunks of 1 GiB down to 64 MiB, halved where one does not fit or fails, until what is to be left
        size = 1 << 30
        while size >= CHUNK:
            ptr = ctypes.c_uint64()
            if free.value < leave + size or cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(size)) != 0:
                size //= 2
                continue
            held.append(size)
            call("cuMemGetInfo_v2", ctypes.byref(free), ctypes.byref(total))
    except RuntimeError as e:
        return fail(str(e))
    print(f"held {sum(held) >> 20} MiB, {free.value >> 20} MiB free", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        signal.pause()


def fail(why):
    print(f"failed: {why}", flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())

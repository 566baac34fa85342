"""Perf (verify-then-load.md section 5): load_checkpoint of a 1 GiB Lensemble artifact costs at
most 1.15x what ckpt-audit of it costs, measured in the same run (best of three each, page
cache warm), and its peak memory outside the held pages stays under 64 MiB.

usage: perf_load.py BIN_DIR (the build's bin folder; the module is on PYTHONPATH)"""

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import resource, sys, time
import numpy, ckpt_audit
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
tensors, header = ckpt_audit.load_checkpoint(sys.argv[1])
seconds = time.perf_counter() - start
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
assert len(tensors) == int(sys.argv[2]), len(tensors)
print(seconds, grown / 1024.0)
"""


def best_of_three(run):
    return min(run() for _ in range(3))


def main():
    bin_dir = sys.argv[1]
    work = tempfile.mkdtemp(prefix="ckpt-perf-load-")
    try:
        root = os.path.join(work, "round")
        count = 64
        subprocess.run([os.path.join(bin_dir, "ckpt-make-artifact"), root, str(count), str(16 << 20)], check=True,
                       stdout=subprocess.DEVNULL)
        audit_argv = [os.path.join(bin_dir, "ckpt-audit"), "--format", "json", "-o", os.path.join(work, "r.json"), root]

        def audit():
            start = time.perf_counter()
            subprocess.run(audit_argv, check=True)
            return time.perf_counter() - start

        growth = []

        def load():
            out = subprocess.run(["/usr/bin/python3", "-c", CHILD, root, str(count)], check=True,
                                 capture_output=True, text=True).stdout.split()
            growth.append(float(out[1]))
            return float(out[0])

        audit()  # warm the page cache
        audited = best_of_three(audit)
        loaded = best_of_three(load)
        audited = min(audited, best_of_three(audit))  # the reference beside it, before and after
        ratio = loaded / audited
        print(f"1 GiB Lensemble: load_checkpoint {loaded:.3f} s, ckpt-audit {audited:.3f} s ({ratio:.3f}x); "
              f"peak RSS growth outside the held pages {max(growth):.1f} MiB")
        ok = ratio <= 1.15 and max(growth) < 64
        if not ok:
            print("FAIL: bound 1.15x and 64 MiB", file=sys.stderr)
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes pickles of plain data with CPython's own pickler, at every protocol (0-5), for
tests/torch_checkpoint_test.cpp: they must pass the static analysis; and the same objects
with a __reduce__ payload (os.system) that must fail naming it. Nothing is loaded back.
Usage: make_plain_pickles.py OUT_DIR"""
import os
import pickle
import random
import sys


def plain(depth=0):
    r = random.random()
    if depth > 3 or r < 0.3:
        return random.choice([None, True, False, 0, -1, 255, 65535, 2**31, -2**31 - 1, 2**70, -2**90, 1.5,
                              float("inf"), "s", "\u00fcn\u00ef", "", b"b\x00", bytearray(b"ba"), 3 + 4j, "x" * 300,
                              b"y" * 300])
    if r < 0.5:
        return [plain(depth + 1) for _ in range(random.randint(0, 4))]
    if r < 0.65:
        return tuple(plain(depth + 1) for _ in range(random.randint(0, 4)))
    if r < 0.75:
        return {random.choice([1, 2, "k", "l"]) for _ in range(random.randint(0, 3))}
    if r < 0.8:
        return frozenset({1, "a"})
    return {random.choice(["a", "b", 1, 2, (1, 2)]): plain(depth + 1) for _ in range(random.randint(0, 4))}


class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/ckpt-audit-never-run",))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    random.seed(3)
    for protocol in range(6):
        for i in range(20):
            obj = plain()
            with open(os.path.join(out, "plain-p%d-%02d.pkl" % (protocol, i)), "wb") as f:
                f.write(pickle.dumps({"value": obj, "shared": [obj, obj]}, protocol=protocol))
        with open(os.path.join(out, "payload-p%d.pkl" % protocol), "wb") as f:
            f.write(pickle.dumps({"value": plain(), "payload": Payload()}, protocol=protocol))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Writes checkpoints the size real tools write, with Debian's numpy, msgpack and joblib, for
the perf test Perf.RealShapedCheckpointsPassAtHashingSpeed (issue 46's acceptance):

  flax_model.msgpack  about 50 MiB, as flax.serialization.to_bytes writes a state dict: nested
                      maps of ext-1 arrays (shape, dtype name, bytes), 50 Dense layers of
                      512x512 float32 kernels and their biases, a numpy scalar step
  model.npz           about 100 MiB, numpy.savez of 25 float32 arrays of 1024x1024
  model.joblib        about 100 MiB, joblib.dump of a dict of 25 such arrays (uncompressed)

  make_large.py OUT
"""
import os
import sys

import joblib
import msgpack
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(46)


def ext_pack(x):  # flax.serialization._msgpack_ext_pack
    if isinstance(x, np.ndarray):
        return msgpack.ExtType(1, msgpack.packb((x.shape, x.dtype.name, x.tobytes("C")), use_bin_type=True))
    if isinstance(x, np.generic):
        return msgpack.ExtType(3, msgpack.packb((x.shape, x.dtype.name, np.asarray(x).tobytes()), use_bin_type=True))
    return x


state = {"params": {"Dense_%d" % i: {"kernel": rng.standard_normal((512, 512), dtype=np.float32),
                                     "bias": np.zeros(512, dtype=np.float32)} for i in range(50)},
         "step": np.int32(1000)}
with open(os.path.join(out, "flax_model.msgpack"), "wb") as f:
    f.write(msgpack.packb(state, default=ext_pack, strict_types=True))
arrays = {"w%02d" % i: rng.standard_normal((1024, 1024), dtype=np.float32) for i in range(25)}
np.savez(os.path.join(out, "model.npz"), **arrays)
joblib.dump(arrays, os.path.join(out, "model.joblib"))

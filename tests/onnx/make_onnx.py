#!/usr/bin/python3
"""Writes ONNX models with Debian's python3-onnx for tests/rules/onnx-invalid_test.cpp
(formats.md section 7), into the directory given:

  model.onnx        a Gemm with its initializers, an If whose branches hold a subgraph
                    initializer, checked by onnx.checker
  external.onnx     model.onnx saved with its initializers as external data (weights.data)
  escape.onnx       external data whose location climbs out of the folder ("../secret.bin"),
                    the CVE-2024-27318 shape
  custom.onnx       a node of a custom domain (com.example.MyGelu)
  pyop.onnx         an onnxruntime-extensions ai.onnx.contrib PyOp node
  unordered.onnx    model.onnx with its two nodes swapped: a node reads an output not yet made
  function_pyop.onnx   a PyOp inside the body of a model-local function (com.local.Wrapped)
  function_domain.onnx a node of com.local that no local function defines, beside one that does
  function_clean.onnx  the local function with a standard body (a near miss)
  sparse_constant.onnx a Constant whose sparse_value keeps its values at ../outside/secret.bin
                       (the ONNX Runtime 1.26.0 bypass)
  dotted.onnx          external data at ".weights.data": 'weights.data' to onnx 1.12, which
                       strips leading dots, '.weights.data' to later loaders
  both.onnx            a tensor with external data that also carries raw_data
  keras_polyglot.onnx  model.onnx whose last field (a metadata_props value) holds a Keras zip
                       whose config imports from os: onnx.load reads an ONNX model, zipfile
                       (and so Keras) a .keras archive. Both readings are checked here.
"""
import io
import json
import os
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]


def base():
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "fc.weight")
    b = numpy_helper.from_array(np.zeros(4, dtype=np.float32), "fc.bias")
    one = numpy_helper.from_array(np.ones(4, dtype=np.float32), "then.one")
    then_graph = helper.make_graph([helper.make_node("Add", ["Y", "then.one"], ["T"])], "then_branch", [],
                                   [helper.make_tensor_value_info("T", TensorProto.FLOAT, [1, 4])], [one])
    else_graph = helper.make_graph([helper.make_node("Identity", ["Y"], ["E"])], "else_branch", [],
                                   [helper.make_tensor_value_info("E", TensorProto.FLOAT, [1, 4])])
    nodes = [helper.make_node("Gemm", ["X", "fc.weight", "fc.bias"], ["Y"]),
             helper.make_node("If", ["cond"], ["Z"], then_branch=then_graph, else_branch=else_graph)]
    graph = helper.make_graph(nodes, "main", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3]),
                                              helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [1, 4])], [w, b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


model = base()
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "model.onnx"))
external = base()
onnx.save_model(external, os.path.join(out, "external.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="weights.data", size_threshold=0)
escape = base()
for t in escape.graph.initializer:
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="../secret.bin")
onnx.save(escape, os.path.join(out, "escape.onnx"))
custom = base()
custom.graph.node.append(helper.make_node("MyGelu", ["Z"], ["G"], domain="com.example"))
custom.opset_import.append(helper.make_opsetid("com.example", 1))
onnx.save(custom, os.path.join(out, "custom.onnx"))
pyop = base()
pyop.graph.node.append(helper.make_node("PyOp", ["Z"], ["P"], domain="ai.onnx.contrib"))
pyop.opset_import.append(helper.make_opsetid("ai.onnx.contrib", 1))
onnx.save(pyop, os.path.join(out, "pyop.onnx"))
unordered = base()
first = onnx.NodeProto()
first.CopyFrom(unordered.graph.node[0])
unordered.graph.node.remove(unordered.graph.node[0])
unordered.graph.node.append(first)
onnx.save(unordered, os.path.join(out, "unordered.onnx"))


def with_function(body_domain, body_op, extra=None):
    """A model whose main graph calls the model-local function com.local.Wrapped."""
    function = helper.make_function("com.local", "Wrapped", ["x"], ["y"],
                                    [helper.make_node(body_op, ["x"], ["y"], domain=body_domain)],
                                    [helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.contrib", 1)])
    nodes = [helper.make_node("Wrapped", ["X"], ["Y"], domain="com.local")]
    if extra:
        nodes.append(helper.make_node(extra, ["Y"], ["W"], domain="com.local"))
    graph = helper.make_graph(nodes, "main", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("W" if extra else "Y", TensorProto.FLOAT, [1])])
    return helper.make_model(graph, functions=[function],
                             opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.local", 1)])


onnx.save(with_function("ai.onnx.contrib", "PyOp"), os.path.join(out, "function_pyop.onnx"))
onnx.save(with_function("", "Relu", extra="Other"), os.path.join(out, "function_domain.onnx"))
clean_function = with_function("", "Relu")
onnx.checker.check_model(clean_function)
onnx.save(clean_function, os.path.join(out, "function_clean.onnx"))

values = numpy_helper.from_array(np.ones(2, dtype=np.float32), "sparse.values")
values.ClearField("raw_data")
values.data_location = TensorProto.EXTERNAL
for key, value in (("location", "../outside/secret.bin"), ("offset", "0"), ("length", "8")):
    values.external_data.add(key=key, value=value)
sparse = helper.make_sparse_tensor(values, numpy_helper.from_array(np.array([0, 3], dtype=np.int64), "sparse.indices"),
                                   [4])
graph = helper.make_graph([helper.make_node("Constant", [], ["C"], sparse_value=sparse),
                           helper.make_node("Identity", ["C"], ["Z"])], "main", [],
                          [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [4])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          os.path.join(out, "sparse_constant.onnx"))

dotted = base()
for t in dotted.graph.initializer:
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value=".weights.data")
onnx.save(dotted, os.path.join(out, "dotted.onnx"))
both = onnx.load(os.path.join(out, "external.onnx"), load_external_data=False)
both.graph.initializer[0].raw_data = np.zeros(12, dtype=np.float32).tobytes()
with open(os.path.join(out, "both.onnx"), "wb") as f:  # onnx.save would move raw_data into weights.data
    f.write(both.SerializeToString())


def varint(n):
    out = b""
    while True:
        byte, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([byte])
        out += bytes([byte | 0x80])


keras_zip = io.BytesIO()
with zipfile.ZipFile(keras_zip, "w") as z:
    z.writestr("metadata.json", json.dumps({"keras_version": "3.3.3"}))
    z.writestr("config.json", json.dumps({"module": "os", "class_name": "system", "config": {},
                                          "registered_name": "system"}))
    z.writestr("model.weights.h5", b"")
entry = b"\x0a\x01k\x12" + varint(len(keras_zip.getvalue())) + keras_zip.getvalue()
polyglot = base().SerializeToString() + b"\x72" + varint(len(entry)) + entry  # field 14: metadata_props
with open(os.path.join(out, "keras_polyglot.onnx"), "wb") as f:
    f.write(polyglot)
assert onnx.load(os.path.join(out, "keras_polyglot.onnx")).metadata_props[0].key == "k"
assert zipfile.ZipFile(os.path.join(out, "keras_polyglot.onnx")).namelist()[1] == "config.json"

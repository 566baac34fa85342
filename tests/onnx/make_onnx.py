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
"""
import os
import sys

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

#!/usr/bin/env python3
"""Writes the small ONNX files of models/onnx_test.go with onnx.helper (Debian's python3-onnx):

  binary-sigmoid.onnx  Sigmoid(x·w + b), w = (1, -2, 0.5), b = 0.25: one output, a binary classifier
  two-inputs.onnx      two graph inputs
  rank3.onnx           an input of shape [B, 2, 3]
  unsupported.onnx     an operator onnx-gomlx does not convert (ai.onnx.ml's LinearClassifier)
"""
import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np


def save(name, nodes, inputs, outputs, inits=(), opsets=(("", 13),)):
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, name + ".onnx")


f = TensorProto.FLOAT
w = numpy_helper.from_array(np.array([[1.0], [-2.0], [0.5]], dtype=np.float32), "w")
b = numpy_helper.from_array(np.array([0.25], dtype=np.float32), "b")
save("binary-sigmoid",
     [helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["z"]),
      helper.make_node("Sigmoid", ["z"], ["p"])],
     [helper.make_tensor_value_info("x", f, ["batch", 3])], [helper.make_tensor_value_info("p", f, ["batch", 1])],
     [w, b])
save("two-inputs", [helper.make_node("Add", ["x", "y"], ["z"])],
     [helper.make_tensor_value_info("x", f, ["batch", 2]), helper.make_tensor_value_info("y", f, ["batch", 2])],
     [helper.make_tensor_value_info("z", f, ["batch", 2])])
save("rank3", [helper.make_node("Identity", ["x"], ["z"])],
     [helper.make_tensor_value_info("x", f, ["batch", 2, 3])], [helper.make_tensor_value_info("z", f, ["batch", 2, 3])])
save("unsupported",
     [helper.make_node("LinearClassifier", ["x"], ["label", "scores"], domain="ai.onnx.ml",
                       coefficients=[1.0, -1.0, 0.5, 0.5], intercepts=[0.0, 0.0], classlabels_ints=[0, 1])],
     [helper.make_tensor_value_info("x", f, ["batch", 2])],
     [helper.make_tensor_value_info("scores", f, ["batch", 2])],
     opsets=(("", 13), ("ai.onnx.ml", 1)))

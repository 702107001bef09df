#!/usr/bin/python3
"""Writes the onnx_import fuzz target's seeds: tiny models (a few hundred bytes each) that reach the
importer's main paths - convolutions with batch norm, dense layers, the constant shape computations
exporters write (Shape, Gather, Unsqueeze, Concat, Reshape), pooling, softmax, layer norm pieces - so
mutations start from models that import. Uses Debian's python3-onnx and numpy only.

    /usr/bin/python3 fuzz/make_onnx_seeds.py fuzz/corpus/onnx_import
"""
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(name, nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tunefarm-fuzz-seeds")
    onnx.checker.check_model(m)
    return m.SerializeToString()


def f32(*shape):
    return (np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) % 7 - 3) / 8


def tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def conv_bn_relu_pool():
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("BatchNormalization", ["c", "g", "b", "m", "v"], ["n"], name="bn1"),
        helper.make_node("Relu", ["n"], ["r"], name="relu1"),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool1"),
        helper.make_node("GlobalAveragePool", ["p"], ["y"], name="gap"),
    ]
    inits = {"w": f32(2, 1, 3, 3), "g": np.ones(2, np.float32), "b": np.zeros(2, np.float32),
             "m": np.zeros(2, np.float32), "v": np.ones(2, np.float32)}
    return model("conv", nodes, [tensor("x", ["N", 1, 4, 4])], [tensor("y", ["N", 2, 1, 1])], inits)


def dense_softmax():
    nodes = [
        helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1, name="fc1"),
        helper.make_node("Add", ["h", "h"], ["a"], name="add1"),
        helper.make_node("Softmax", ["a"], ["y"], axis=-1, name="softmax1"),
    ]
    inits = {"w": f32(3, 4), "b": np.zeros(3, np.float32)}
    return model("dense", nodes, [tensor("x", ["N", 4])], [tensor("y", ["N", 3])], inits)


def shape_arithmetic():
    """Flatten as exporters write it: the batch from Shape/Gather, the rest a constant, then Reshape."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape1"),
        helper.make_node("Gather", ["s", "zero"], ["batch"], axis=0, name="gather1"),
        helper.make_node("Unsqueeze", ["batch", "axes"], ["b1"], name="unsqueeze1"),
        helper.make_node("Concat", ["b1", "minus_one"], ["target"], axis=0, name="concat1"),
        helper.make_node("Reshape", ["x", "target"], ["flat"], name="reshape1"),
        helper.make_node("MatMul", ["flat", "w"], ["y"], name="matmul1"),
    ]
    inits = {"zero": np.array(0, np.int64), "axes": np.array([0], np.int64), "minus_one": np.array([-1], np.int64), "w": f32(8, 2)}
    return model("flatten", nodes, [tensor("x", ["N", 2, 2, 2])], [tensor("y", ["N", 2])], inits)


def layer_norm_pieces():
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["mean"], axes=[-1], name="mean1"),
        helper.make_node("Sub", ["x", "mean"], ["d"], name="sub1"),
        helper.make_node("Mul", ["d", "d"], ["sq"], name="mul1"),
        helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1], name="mean2"),
        helper.make_node("Add", ["var", "eps"], ["ve"], name="add1"),
        helper.make_node("Sqrt", ["ve"], ["sd"], name="sqrt1"),
        helper.make_node("Div", ["d", "sd"], ["n"], name="div1"),
        helper.make_node("Transpose", ["n"], ["y"], perm=[0, 2, 1], name="transpose1"),
    ]
    inits = {"eps": np.array([1e-5], np.float32)}
    return model("layernorm", nodes, [tensor("x", [1, 3, 4])], [tensor("y", [1, 4, 3])], inits)


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, build in [("conv_bn_relu_pool", conv_bn_relu_pool), ("dense_softmax", dense_softmax),
                        ("shape_arithmetic", shape_arithmetic), ("layer_norm_pieces", layer_norm_pieces)]:
        (out / f"{name}.onnx").write_bytes(build())


if __name__ == "__main__":
    main()

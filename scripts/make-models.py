#!/usr/bin/python3
"""Writes the test models into a folder: ResNet-18, MobileNetV2 and one BERT-base encoder layer,
with their real structure (as PyTorch exports them, batch normalization kept as its own node) and
random weights; and a small CNN (ResNet's stem and one block at 32x32) that tunes in seconds.
Uses Debian's python3-onnx and numpy only; run with /usr/bin/python3.

    scripts/make-models.py DIR      -> DIR/resnet18.onnx, DIR/mobilenetv2.onnx, DIR/bert_layer.onnx,
                                       DIR/small_cnn.onnx

The batch extent of every input is symbolic ("N"), as exporters write it; tunefarm fixes it at import.
The same seed gives the same files.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    """Nodes and initializers of one graph, with names made up as a PyTorch export would."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.inits = []
        self.count = {}

    def name(self, stem):
        self.count[stem] = self.count.get(stem, 0) + 1
        return f"{stem}_{self.count[stem]}"

    def const(self, stem, array):
        n = self.name(stem)
        self.inits.append(numpy_helper.from_array(np.asarray(array), n))
        return n

    def weight(self, stem, shape, fan_in):
        return self.const(stem, (self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32))

    def node(self, op, inputs, **attrs):
        n = self.name(op)
        out = n + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=n, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, groups=1, bias=False):
        w = self.weight("conv.weight", (cout, cin // groups, k, k), cin // groups * k * k)
        inputs = [x, w] + ([self.weight("conv.bias", (cout,), cin)] if bias else [])
        p = k // 2
        return self.node("Conv", inputs, kernel_shape=[k, k], strides=[stride, stride], pads=[p, p, p, p], group=groups, dilations=[1, 1])

    def batchnorm(self, x, c):
        r = self.rng
        params = [
            self.const("bn.weight", r.uniform(0.5, 1.5, c).astype(np.float32)),
            self.const("bn.bias", r.uniform(-0.2, 0.2, c).astype(np.float32)),
            self.const("bn.running_mean", r.uniform(-0.2, 0.2, c).astype(np.float32)),
            self.const("bn.running_var", r.uniform(0.5, 1.5, c).astype(np.float32)),
        ]
        return self.node("BatchNormalization", [x] + params, epsilon=1e-5, momentum=0.9)

    def relu6(self, x):
        return self.node("Clip", [x, self.const("min", np.array(0, np.float32)), self.const("max", np.array(6, np.float32))])

    def linear(self, x, cin, cout):
        w = self.weight("fc.weight", (cout, cin), cin)
        b = self.weight("fc.bias", (cout,), cin)
        return self.node("Gemm", [x, w, b], alpha=1.0, beta=1.0, transB=1)

    def model(self, name, inputs, output, opset):
        outputs = [helper.make_tensor_value_info(output[0], TensorProto.FLOAT, output[1])]
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(graph, producer_name="tunefarm make-models.py", opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        onnx.checker.check_model(m)
        return m


def resnet18():
    b = Builder(18)
    x = b.conv("input", 3, 64, 7, stride=2)
    x = b.node("Relu", [b.batchnorm(x, 64)])
    x = b.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            s = stride if block == 0 else 1
            y = b.node("Relu", [b.batchnorm(b.conv(x, cin, cout, 3, stride=s), cout)])
            y = b.batchnorm(b.conv(y, cout, cout, 3), cout)
            shortcut = b.batchnorm(b.conv(x, cin, cout, 1, stride=s), cout) if (s != 1 or cin != cout) else x
            x = b.node("Relu", [b.node("Add", [y, shortcut])])
            cin = cout
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x])], axis=1)
    x = b.linear(x, 512, 1000)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])
    return b.model("resnet18", [inp], (x, ["N", 1000]), 13)


def small_cnn():
    b = Builder(7)
    x = b.node("Relu", [b.batchnorm(b.conv("input", 3, 16, 3), 16)])
    y = b.node("Relu", [b.batchnorm(b.conv(x, 16, 32, 3, stride=2), 32)])
    y = b.batchnorm(b.conv(y, 32, 32, 3), 32)
    x = b.node("Relu", [b.node("Add", [y, b.batchnorm(b.conv(x, 16, 32, 1, stride=2), 32)])])
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x])], axis=1)
    x = b.linear(x, 32, 10)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 32, 32])
    return b.model("small_cnn", [inp], (x, ["N", 10]), 13)


def mobilenetv2():
    b = Builder(2)
    x = b.relu6(b.batchnorm(b.conv("input", 3, 32, 3, stride=2), 32))
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x
            if t != 1:
                y = b.relu6(b.batchnorm(b.conv(y, cin, hidden, 1), hidden))
            y = b.relu6(b.batchnorm(b.conv(y, hidden, hidden, 3, stride=stride, groups=hidden), hidden))
            y = b.batchnorm(b.conv(y, hidden, c, 1), c)
            x = b.node("Add", [x, y]) if stride == 1 and cin == c else y
            cin = c
    x = b.relu6(b.batchnorm(b.conv(x, cin, 1280, 1), 1280))
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x])], axis=1)
    x = b.linear(x, 1280, 1000)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])
    return b.model("mobilenetv2", [inp], (x, ["N", 1000]), 11)


def bert_layer(seq=128, hidden=768, heads=12, ffn=3072):
    b = Builder(768)
    head = hidden // heads

    def dense(x, cin, cout):
        return b.node("Add", [b.node("MatMul", [x, b.weight("dense.weight", (cin, cout), cin)]), b.weight("dense.bias", (cout,), cin)])

    def layernorm(x):
        scale = b.const("LayerNorm.weight", b.rng.uniform(0.8, 1.2, hidden).astype(np.float32))
        shift = b.const("LayerNorm.bias", b.rng.uniform(-0.1, 0.1, hidden).astype(np.float32))
        return b.node("LayerNormalization", [x, scale, shift], axis=-1, epsilon=1e-12)

    x = "hidden_states"
    # The per-head shape from the input's batch extent, as an exporter computes it.
    batch = b.node("Unsqueeze", [b.node("Gather", [b.node("Shape", [x]), b.const("zero", np.array(0, np.int64))], axis=0),
                                 b.const("axes", np.array([0], np.int64))])
    heads_shape = b.node("Cast", [b.node("Concat", [batch, b.const("seq_heads_dim", np.array([seq, heads, head], np.int64))], axis=0)],
                         to=TensorProto.INT64)

    def split_heads(t, perm):
        return b.node("Transpose", [b.node("Reshape", [t, heads_shape])], perm=perm)

    q = split_heads(dense(x, hidden, hidden), [0, 2, 1, 3])
    k = split_heads(dense(x, hidden, hidden), [0, 2, 3, 1])
    v = split_heads(dense(x, hidden, hidden), [0, 2, 1, 3])
    scores = b.node("Div", [b.node("MatMul", [q, k]), b.const("sqrt_head", np.array(np.sqrt(head), np.float32))])
    probs = b.node("Softmax", [b.node("Add", [scores, "attention_mask"])], axis=-1)
    ctx = b.node("Transpose", [b.node("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", [ctx, b.const("merged_shape", np.array([0, 0, hidden], np.int64))])
    h = layernorm(b.node("Add", [dense(ctx, hidden, hidden), x]))
    f = dense(h, hidden, ffn)
    # GELU as exported: x * 0.5 * (1 + erf(x / sqrt(2)))
    g = b.node("Erf", [b.node("Div", [f, b.const("sqrt2", np.array(np.sqrt(2.0), np.float32))])])
    g = b.node("Mul", [b.node("Mul", [f, b.node("Add", [g, b.const("one", np.array(1.0, np.float32))])]), b.const("half", np.array(0.5, np.float32))])
    out = layernorm(b.node("Add", [dense(g, ffn, hidden), h]))
    inputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", seq, hidden]),
              helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["N", 1, 1, seq])]
    return b.model("bert_layer", inputs, (out, ["N", seq, hidden]), 17)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="folder to write the .onnx files into (created if missing)")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    for name, make in [("resnet18", resnet18), ("mobilenetv2", mobilenetv2), ("bert_layer", bert_layer), ("small_cnn", small_cnn)]:
        path = os.path.join(args.dir, name + ".onnx")
        tmp = path + ".tmp"
        onnx.save(make(), tmp)
        os.replace(tmp, path)
        print(f"make-models: {path} ({os.path.getsize(path) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

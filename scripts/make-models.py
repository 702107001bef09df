#!/usr/bin/python3
"""Writes the test models into a folder: ResNet-18, MobileNetV2, one BERT-base encoder layer and the
whole 12-layer BERT-base encoder,
with their real structure (as PyTorch exports them, batch normalization kept as its own node) and
random weights; a small CNN (ResNet's stem and one block at 32x32) that tunes in seconds; and four
models in the shape exporters leave them (old opsets, spelled-out activations, shape arithmetic at
run time, symbolic extents beyond the batch): MobileNetV3 at opset 9, an FPN at opset 11 with
symbolic H and W, a transformer encoder at opset 13 (and 7 layers of it), a 1-D conv speech net at
opset 12.
Uses Debian's python3-onnx and numpy only; run with /usr/bin/python3.

    scripts/make-models.py DIR      -> DIR/resnet18.onnx, DIR/mobilenetv2.onnx, DIR/bert_layer.onnx, DIR/bert_encoder12.onnx,
                                       DIR/small_cnn.onnx, DIR/mobilenetv3_opset9.onnx, DIR/fpn_opset11.onnx,
                                       DIR/transformer_opset13.onnx, DIR/transformer_deep_opset13.onnx,
                                       DIR/speech_conv1d_opset12.onnx, DIR/input-shapes.json

Every model passes onnx.checker's full check. The batch extent of every input is symbolic ("N"), as
exporters write it; tunefarm binds it at import (--batch, --input-shape). The same seed gives the same files.
"""
import argparse
import json
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

    def constant(self, array):
        """A Constant node, as exporters leave shape arithmetic and Resize's scales."""
        n = self.name("Constant")
        self.nodes.append(helper.make_node("Constant", [], [n + "_out"], name=n, value=numpy_helper.from_array(np.asarray(array))))
        return n + "_out"

    def conv(self, x, cin, cout, k, stride=1, groups=1, bias=False, dims=2, dilation=1):
        w = self.weight("conv.weight", (cout, cin // groups) + (k,) * dims, cin // groups * k ** dims)
        inputs = [x, w] + ([self.weight("conv.bias", (cout,), cin)] if bias else [])
        p = dilation * (k // 2)
        return self.node("Conv", inputs, kernel_shape=[k] * dims, strides=[stride] * dims, pads=[p] * (2 * dims), group=groups,
                         dilations=[dilation] * dims)

    def batchnorm(self, x, c, **attrs):
        r = self.rng
        params = [
            self.const("bn.weight", r.uniform(0.5, 1.5, c).astype(np.float32)),
            self.const("bn.bias", r.uniform(-0.2, 0.2, c).astype(np.float32)),
            self.const("bn.running_mean", r.uniform(-0.2, 0.2, c).astype(np.float32)),
            self.const("bn.running_var", r.uniform(0.5, 1.5, c).astype(np.float32)),
        ]
        return self.node("BatchNormalization", [x] + params, epsilon=1e-5, momentum=0.9, **attrs)

    def relu6(self, x):
        return self.node("Clip", [x, self.const("min", np.array(0, np.float32)), self.const("max", np.array(6, np.float32))])

    def linear(self, x, cin, cout):
        w = self.weight("fc.weight", (cout, cin), cin)
        b = self.weight("fc.bias", (cout,), cin)
        return self.node("Gemm", [x, w, b], alpha=1.0, beta=1.0, transB=1)

    def model(self, name, inputs, output, opset, more_outputs=(), ir_version=8, initializers_as_inputs=False):
        outputs = [helper.make_tensor_value_info(o[0], TensorProto.FLOAT, o[1]) for o in (output,) + tuple(more_outputs)]
        if initializers_as_inputs:  # what exporters of IR version 3 and 4 did (PyTorch's keep_initializers_as_inputs)
            inputs = inputs + [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in self.inits]
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(graph, producer_name="tunefarm make-models.py", opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = ir_version
        onnx.checker.check_model(m, full_check=True)
        return m

    def params(self):
        return sum(int(np.prod(t.dims)) for t in self.inits if t.data_type == TensorProto.FLOAT)


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


def bert_encoder(name, layers, seq=128, hidden=768, heads=12, ffn=3072):
    """BERT-base encoder layers as exported (opset 17): each projection MatMul + Add, attention
    through Reshape/Transpose per head, the scale Div and mask Add, Softmax, GELU through Erf,
    residual Adds, LayerNormalization. Layer 1's weights are the same whatever the layer count."""
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

    def layer(x):
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
        return layernorm(b.node("Add", [dense(g, ffn, hidden), h]))

    for _ in range(layers):
        x = layer(x)
    inputs = [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["N", seq, hidden]),
              helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["N", 1, 1, seq])]
    return b.model(name, inputs, (x, ["N", seq, hidden]), 17)


def bert_layer():
    return bert_encoder("bert_layer", 1)


def bert_encoder12():
    """BERT-base's whole encoder: 12 layers (85 M parameters, 340 MB of float32 weights)."""
    return bert_encoder("bert_encoder12", 12)


# The models below are in the shape exporters leave them (PyTorch's torch.onnx, PaddlePaddle's
# paddle2onnx): old opsets, activations spelled out in older ops, shape arithmetic computed at run
# time, symbolic extents beyond the batch. tunefarm refuses most of them until it has the ops;
# scripts/check-exported-models.py runs each in ONNX Runtime and lists what tunefarm refuses.


def mobilenetv3_opset9(classes=100):
    """MobileNetV3-Small at opset 9: HardSwish (opset 14) as x * HardSigmoid(x), as PyTorch writes it,
    and as x * Clip(x + 3, 0, 6) / 6 with Clip-6's min/max attributes, as paddle2onnx writes it;
    squeeze-excite blocks; BatchNormalization-9 (its `spatial` attribute went with opset 9: ONNX
    Runtime and the checker refuse it there); initializers listed as graph inputs (IR version 4)."""
    b = Builder(3)

    def hardswish_torch(x):
        return b.node("Mul", [x, b.node("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)])

    def hardswish_paddle(x):
        three, six = b.const("three", np.array(3, np.float32)), b.const("six", np.array(6, np.float32))
        return b.node("Div", [b.node("Mul", [x, b.node("Clip", [b.node("Add", [x, three])], min=0.0, max=6.0)]), six])

    def squeeze_excite(x, c):
        squeeze = max(8, (c // 4 + 4) // 8 * 8)
        s = b.node("Relu", [b.conv(b.node("GlobalAveragePool", [x]), c, squeeze, 1, bias=True)])
        s = b.node("HardSigmoid", [b.conv(s, squeeze, c, 1, bias=True)], alpha=1.0 / 6, beta=0.5)
        return b.node("Mul", [x, s])

    x = hardswish_paddle(b.batchnorm(b.conv("image", 3, 16, 3, stride=2), 16))
    cin = 16
    for k, exp, cout, se, hs, stride in [(3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2), (3, 88, 24, False, False, 1),
                                         (5, 96, 40, True, True, 2), (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
                                         (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1), (5, 288, 96, True, True, 2),
                                         (5, 576, 96, True, True, 1), (5, 576, 96, True, True, 1)]:
        act = hardswish_torch if hs else (lambda t: b.node("Relu", [t]))
        y = x
        if exp != cin:
            y = act(b.batchnorm(b.conv(y, cin, exp, 1), exp))
        y = act(b.batchnorm(b.conv(y, exp, exp, k, stride=stride, groups=exp), exp))
        if se:
            y = squeeze_excite(y, exp)
        y = b.batchnorm(b.conv(y, exp, cout, 1), cout)
        x = b.node("Add", [x, y]) if stride == 1 and cin == cout else y
        cin = cout
    x = hardswish_paddle(b.batchnorm(b.conv(x, cin, 576, 1), 576))
    x = b.node("Flatten", [b.node("GlobalAveragePool", [x])], axis=1)
    x = b.node("Clip", [hardswish_torch(b.linear(x, 576, 1024))], min=-6.0, max=6.0)  # a ReLU6-bounded feature, as Clip-6
    x = b.linear(x, 1024, classes)
    inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, 224, 224])
    return b.model("mobilenetv3_opset9", [inp], (x, ["N", classes]), 9, ir_version=4, initializers_as_inputs=True)


def fpn_opset11(classes=8, anchors=3):
    """An FPN over a small backbone at opset 11, image [N,3,H,W] with H and W symbolic (multiples of
    32): top-down Resize nearest (asymmetric, floor; scales as a Constant input beside the empty roi,
    as PyTorch writes F.interpolate), a semantic-segmentation branch that brings P3-P5 to P2 by Resize
    linear in half_pixel, align_corners and pytorch_half_pixel and upsamples by two ConvTranspose, and
    a RetinaNet-style head whose outputs are reshaped through Shape/Gather/Unsqueeze/Concat."""
    b = Builder(11)
    empty_roi = b.constant(np.zeros(0, np.float32))

    def resize(x, scale, mode, transform):
        scales = b.constant(np.array([1, 1, scale, scale], np.float32))
        extra = {"nearest_mode": "floor"} if mode == "nearest" else {}
        return b.node("Resize", [x, empty_roi, scales], mode=mode, coordinate_transformation_mode=transform, cubic_coeff_a=-0.75, **extra)

    def conv_bn_relu(x, cin, cout, stride=1):
        return b.node("Relu", [b.batchnorm(b.conv(x, cin, cout, 3, stride=stride), cout)])

    x = conv_bn_relu("image", 3, 16, stride=2)
    feats, cin = [], 16
    for cout, repeat in [(32, 2), (64, 2), (128, 2), (192, 1)]:
        x = conv_bn_relu(x, cin, cout, stride=2)
        for _ in range(repeat - 1):
            x = conv_bn_relu(x, cout, cout)
        feats.append((x, cout))
        cin = cout
    width = 64
    laterals = [b.conv(f, c, width, 1, bias=True) for f, c in feats]
    p = [None] * 4
    p[3] = laterals[3]
    for i in (2, 1, 0):
        p[i] = b.node("Add", [laterals[i], resize(p[i + 1], 2, "nearest", "asymmetric")])
    p = [b.conv(t, width, width, 3, bias=True) for t in p]

    seg = p[0]
    for level, transform in [(1, "half_pixel"), (2, "align_corners"), (3, "pytorch_half_pixel")]:
        up = b.node("Relu", [b.conv(p[level], width, width, 3, bias=True)])
        seg = b.node("Add", [seg, resize(up, 2 ** level, "linear", transform)])
    seg = b.node("Relu", [b.conv(seg, width, 32, 3, bias=True)])
    w1 = b.weight("deconv.weight", (32, 16, 2, 2), 32 * 4)
    seg = b.node("Relu", [b.node("ConvTranspose", [seg, w1, b.weight("deconv.bias", (16,), 32)], kernel_shape=[2, 2], strides=[2, 2],
                                 pads=[0, 0, 0, 0], dilations=[1, 1], group=1)])
    w2 = b.weight("deconv.weight", (16, classes, 4, 4), 16 * 16)
    seg = b.node("ConvTranspose", [seg, w2, b.weight("deconv.bias", (classes,), 16)], kernel_shape=[4, 4], strides=[2, 2],
                 pads=[1, 1, 1, 1], dilations=[1, 1], group=1, output_padding=[0, 0])

    # One head, its weights shared by P3-P5; [N, A*K, h, w] -> [N, h*w*A, K] with the batch read at run time.
    head = {name: (b.weight(name + ".weight", (width, width, 3, 3), width * 9), b.weight(name + ".bias", (width,), width),
                   b.weight(name + ".out.weight", (anchors * k, width, 3, 3), width * 9), b.weight(name + ".out.bias", (anchors * k,), width))
            for name, k in [("cls", classes), ("box", 4)]}
    conv_attrs = dict(kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], dilations=[1, 1], group=1)
    outs = {"cls": [], "box": []}
    for level in (1, 2, 3):
        for name, k in [("cls", classes), ("box", 4)]:
            w, bias, wo, bo = head[name]
            t = b.node("Relu", [b.node("Conv", [p[level], w, bias], **conv_attrs)])
            t = b.node("Transpose", [b.node("Conv", [t, wo, bo], **conv_attrs)], perm=[0, 2, 3, 1])
            n = b.node("Unsqueeze", [b.node("Gather", [b.node("Shape", [t]), b.constant(np.array(0, np.int64))], axis=0)], axes=[0])
            shape = b.node("Concat", [n, b.constant(np.array([-1], np.int64)), b.constant(np.array([k], np.int64))], axis=0)
            outs[name].append(b.node("Reshape", [t, shape]))
    scores = b.node("Sigmoid", [b.node("Concat", outs["cls"], axis=1)])
    boxes = b.node("Concat", outs["box"], axis=1)
    inp = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 3, "H", "W"])
    return b.model("fpn_opset11", [inp], (seg, ["N", classes, "H", "W"]), 11, ir_version=6,
                   more_outputs=[(scores, ["N", "anchors", classes]), (boxes, ["N", "anchors", 4])])


def transformer_opset13(vocab=1000, max_positions=512, hidden=128, heads=4, ffn=512, layers=2, name="transformer_opset13"):
    """A BERT-style encoder at opset 13 as torch.onnx leaves it: input_ids and attention_mask
    [batch, sequence] (both symbolic), position ids sliced to the sequence read at run time, every
    head split and merge a Reshape whose shape is a Shape/Gather/Unsqueeze/Concat chain, LayerNorm
    written out (ReduceMean/Sub/Pow/Sqrt/Div), GELU through Erf, a pooler (Gather, Gemm, Tanh)."""
    b = Builder(13)
    head = hidden // heads
    scalar = lambda v, t=np.float32: b.constant(np.array(v, t))
    axes0 = lambda: b.constant(np.array([0], np.int64))

    def extent(t, axis):  # Unsqueeze(Gather(Shape(t), axis)): one extent as a 1-element shape
        return b.node("Unsqueeze", [b.node("Gather", [b.node("Shape", [t]), scalar(axis, np.int64)], axis=0), axes0()])

    def layernorm(x):
        mean = b.node("ReduceMean", [x], axes=[-1], keepdims=1)
        d = b.node("Sub", [x, mean])
        var = b.node("ReduceMean", [b.node("Pow", [d, scalar(2.0)])], axes=[-1], keepdims=1)
        y = b.node("Div", [d, b.node("Sqrt", [b.node("Add", [var, scalar(1e-12)])])])
        gamma = b.const("LayerNorm.weight", b.rng.uniform(0.8, 1.2, hidden).astype(np.float32))
        beta = b.const("LayerNorm.bias", b.rng.uniform(-0.1, 0.1, hidden).astype(np.float32))
        return b.node("Add", [b.node("Mul", [y, gamma]), beta])

    def dense(x, cin, cout):
        return b.node("Add", [b.weight("dense.bias", (cout,), cin), b.node("MatMul", [x, b.weight("dense.weight", (cin, cout), cin)])])

    ids, mask = "input_ids", "attention_mask"
    words = b.node("Gather", [b.weight("word_embeddings.weight", (vocab, hidden), hidden), ids], axis=0)
    position_ids = b.const("position_ids", np.arange(max_positions, dtype=np.int64)[None, :])
    positions = b.node("Slice", [position_ids, b.constant(np.array([0], np.int64)), extent(ids, 1), b.constant(np.array([1], np.int64)),
                                 b.constant(np.array([1], np.int64))])
    positions = b.node("Gather", [b.weight("position_embeddings.weight", (max_positions, hidden), hidden), positions], axis=0)
    x = layernorm(b.node("Add", [words, positions]))
    # (1 - mask) * -10000 over [batch, 1, 1, sequence]
    ext = b.node("Unsqueeze", [b.node("Unsqueeze", [mask, b.constant(np.array([1], np.int64))]), b.constant(np.array([2], np.int64))])
    ext = b.node("Mul", [b.node("Sub", [scalar(1.0), b.node("Cast", [ext], to=TensorProto.FLOAT)]), scalar(-10000.0)])

    for _ in range(layers):
        def split_heads(t, perm):
            shape = b.node("Concat", [extent(t, 0), extent(t, 1), b.constant(np.array([heads], np.int64)),
                                      b.constant(np.array([head], np.int64))], axis=0)
            return b.node("Transpose", [b.node("Reshape", [t, shape])], perm=perm)

        q = split_heads(dense(x, hidden, hidden), [0, 2, 1, 3])
        k = split_heads(dense(x, hidden, hidden), [0, 2, 3, 1])
        v = split_heads(dense(x, hidden, hidden), [0, 2, 1, 3])
        scores = b.node("Add", [b.node("Div", [b.node("MatMul", [q, k]), scalar(np.sqrt(head))]), ext])
        ctx = b.node("Transpose", [b.node("MatMul", [b.node("Softmax", [scores], axis=-1), v])], perm=[0, 2, 1, 3])
        merged = b.node("Concat", [extent(ctx, 0), extent(ctx, 1), b.constant(np.array([hidden], np.int64))], axis=0)
        x = layernorm(b.node("Add", [dense(b.node("Reshape", [ctx, merged]), hidden, hidden), x]))
        f = dense(x, hidden, ffn)
        g = b.node("Add", [b.node("Erf", [b.node("Div", [f, scalar(np.sqrt(2.0))])]), scalar(1.0)])
        g = b.node("Mul", [b.node("Mul", [f, g]), scalar(0.5)])
        x = layernorm(b.node("Add", [dense(g, ffn, hidden), x]))

    first = b.node("Gather", [x, scalar(0, np.int64)], axis=1)
    pooled = b.node("Tanh", [b.linear(first, hidden, hidden)])
    inputs = [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "sequence"]),
              helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "sequence"])]
    return b.model(name, inputs, (x, ["batch", "sequence", hidden]), 13, ir_version=7,
                   more_outputs=[(pooled, ["batch", hidden])])


def transformer_deep_opset13():
    """The same encoder 7 layers deep: 799 nodes, the size at which import and build are timed."""
    return transformer_opset13(layers=7, name="transformer_deep_opset13")


def speech_conv1d_opset12(mels=64, keywords=35):
    """A keyword-spotting 1-D conv net at opset 12 (features [N, 64, T], T symbolic): Conv1d with
    kernel_shape [k] (strided, depthwise-separable with a residual, dilated), BatchNormalization,
    Relu, MaxPool1d, the mean over time as ReduceMean (x.mean(2)) and a Gemm classifier."""
    b = Builder(12)

    def conv_bn(x, cin, cout, k, **kw):
        return b.batchnorm(b.conv(x, cin, cout, k, dims=1, **kw), cout)

    x = b.node("Relu", [conv_bn("features", mels, 128, 11, stride=2)])
    for _ in range(2):  # QuartzNet-style: depthwise k=13 + pointwise, twice, and a 1x1 residual
        y = b.node("Relu", [conv_bn(b.conv(x, 128, 128, 13, groups=128, dims=1), 128, 128, 1)])
        y = conv_bn(b.conv(y, 128, 128, 13, groups=128, dims=1), 128, 128, 1)
        x = b.node("Relu", [b.node("Add", [y, conv_bn(x, 128, 128, 1)])])
    x = b.node("MaxPool", [x], kernel_shape=[2], strides=[2], pads=[0, 0], ceil_mode=0)
    x = b.node("Relu", [conv_bn(x, 128, 256, 5)])
    x = b.node("MaxPool", [x], kernel_shape=[3], strides=[2], pads=[1, 1], ceil_mode=0)
    x = b.node("Relu", [conv_bn(x, 256, 256, 3, dilation=2)])
    x = b.linear(b.node("ReduceMean", [x], axes=[2], keepdims=0), 256, keywords)
    inp = helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", mels, "T"])
    return b.model("speech_conv1d_opset12", [inp], (x, ["N", keywords]), 12, ir_version=7)


# One binding of each exported model's symbolic extents (scripts/check-exported-models.py runs them
# so, and so does tunefarm's --input-shape): H and W differ so that a swap shows. Written beside the
# models as input-shapes.json for the benches.
BINDINGS = {"mobilenetv3_opset9": {"image": [1, 3, 224, 224]}, "fpn_opset11": {"image": [1, 3, 320, 256]},
            "transformer_opset13": {"input_ids": [1, 24], "attention_mask": [1, 24]},
            "transformer_deep_opset13": {"input_ids": [1, 24], "attention_mask": [1, 24]},
            "speech_conv1d_opset12": {"features": [1, 64, 201]}}

# What input-shapes.json holds: the exported models' bindings, and the test models the benches run at
# a sequence length of their own (only their batch is symbolic; written out so a reader sees it).
INPUT_SHAPES = dict(BINDINGS, bert_encoder12={"hidden_states": [1, 128, 768], "attention_mask": [1, 1, 1, 128]})

MODELS = [("resnet18", resnet18), ("mobilenetv2", mobilenetv2), ("bert_layer", bert_layer), ("bert_encoder12", bert_encoder12),
          ("small_cnn", small_cnn),
          ("mobilenetv3_opset9", mobilenetv3_opset9), ("fpn_opset11", fpn_opset11), ("transformer_opset13", transformer_opset13),
          ("transformer_deep_opset13", transformer_deep_opset13),
          ("speech_conv1d_opset12", speech_conv1d_opset12)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="folder to write the .onnx files into (created if missing)")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    for name, make in MODELS:
        path = os.path.join(args.dir, name + ".onnx")
        tmp = path + ".tmp"
        onnx.save(make(), tmp)
        os.replace(tmp, path)
        print(f"make-models: {path} ({os.path.getsize(path) // 1024} KiB)")
    bindings = os.path.join(args.dir, "input-shapes.json")
    with open(bindings + ".tmp", "w") as f:
        json.dump(INPUT_SHAPES, f, indent=1)
    os.replace(bindings + ".tmp", bindings)
    return 0


if __name__ == "__main__":
    sys.exit(main())

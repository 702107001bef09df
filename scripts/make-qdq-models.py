#!/usr/bin/python3
"""Writes int8 test models in ONNX's QDQ format from the float ones scripts/make-models.py writes, as a
static post-training quantizer would: batch normalization folded into the convolution before it,
activation ranges calibrated on random inputs by running the float model (numpy), activations
uint8 with a zero point per tensor, weights int8 symmetric per output channel, biases int32 at the
product of their input's and weight's scales. Every quantized tensor is a QuantizeLinear followed
by a DequantizeLinear, so the model runs in float anywhere and an int8 runtime (ONNX Runtime, a
tunefarm build) fuses each DequantizeLinear -> Conv/Gemm -> QuantizeLinear group into one integer kernel.
Uses Debian's python3-onnx and numpy only; run with /usr/bin/python3.

    scripts/make-qdq-models.py DIR     -> DIR/resnet18_qdq.onnx (reads DIR/resnet18.onnx)
                                          DIR/resnet18_qlinear.onnx
                                          DIR/mobilenetv2_qdq.onnx (reads DIR/mobilenetv2.onnx)
                                          DIR/bert_layer_qdq.onnx (reads DIR/bert_layer.onnx)

resnet18_qlinear is the same model in the operator form: each DequantizeLinear -> Conv [-> Relu] ->
QuantizeLinear group one QLinearConv (the Relu is the saturation at the output's zero point 0, as
ONNX Runtime's quantizer writes it); the rest (residual adds, pooling, the classifier) stays QDQ.

bert_layer_qdq quantizes a transformer layer as quantizers do for CPUs: each MatMul with a constant
weight reads a quantized activation and an int8 weight per output column, and its bias Add's output
is quantized; the attention's products of two activations, softmax, GELU and layer norms stay float.

The same float model and seed give the same file.
"""
import argparse
import math
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Ops whose output tensor gets a QuantizeLinear -> DequantizeLinear pair (a Conv or Gemm output
# read only by a Relu or a Clip (MobileNet's ReLU6) is quantized after it instead, as quantizers
# fuse the two).
QUANTIZED_OUTPUTS = {"Conv", "Gemm", "Relu", "Clip", "Add", "MaxPool", "GlobalAveragePool", "Flatten"}
ACTIVATIONS = ("Relu", "Clip")


def attrs_of(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def drop_unused_initializers(g):
    used = {i for n in g.node for i in n.input}
    live = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(live)


def readers_of(g):
    """Each tensor's reading nodes."""
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    return readers


def fold_batchnorm(model):
    """Conv -> BatchNormalization becomes one Conv with scaled weights and a bias."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    consumers = readers_of(g)
    keep, rename = [], {}
    producer = {o: n for n in g.node for o in n.output}
    for n in g.node:
        if n.op_type == "BatchNormalization":
            conv = producer.get(n.input[0])
            if conv is not None and conv.op_type == "Conv" and len(consumers[n.input[0]]) == 1:
                gamma, beta, mean, var = (numpy_helper.to_array(inits[i]) for i in n.input[1:5])
                eps = attrs_of(n).get("epsilon", 1e-5)
                factor = gamma / np.sqrt(var + eps)
                w = numpy_helper.to_array(inits[conv.input[1]])
                b = numpy_helper.to_array(inits[conv.input[2]]) if len(conv.input) > 2 else np.zeros(w.shape[0], np.float32)
                w_name, b_name = conv.input[1] + "_folded", conv.name + ".bias_folded"
                g.initializer.append(numpy_helper.from_array((w * factor[:, None, None, None]).astype(np.float32), w_name))
                g.initializer.append(numpy_helper.from_array(((b - mean) * factor + beta).astype(np.float32), b_name))
                del conv.input[1:]
                conv.input.extend([w_name, b_name])
                rename[n.output[0]] = conv.output[0]
                continue
        keep.append(n)
    for n in keep:
        for k, i in enumerate(n.input):
            if i in rename:
                n.input[k] = rename[i]
    for o in g.output:
        if o.name in rename:
            o.name = rename[o.name]
    del g.node[:]
    g.node.extend(keep)
    drop_unused_initializers(g)


def conv2d(x, w, b, a):
    strides, pads = a.get("strides", [1, 1]), a.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    k, c, r, s = w.shape
    windows = np.lib.stride_tricks.sliding_window_view(x, (r, s), axis=(2, 3))[:, :, :: strides[0], :: strides[1]]
    if a.get("group", 1) != 1:  # depthwise: one input channel per output channel
        if a["group"] != k or c != 1:
            raise SystemExit("make-qdq-models: grouped convs other than depthwise are not written here")
        y = np.einsum("nchwrs,crs->nchw", windows, w[:, 0]) + np.reshape(b, (1, -1, 1, 1))
        return y.astype(np.float32)
    n, _, ho, wo = windows.shape[:4]
    cols = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n, ho * wo, c * r * s)
    y = cols @ w.reshape(k, -1).T + b
    return y.transpose(0, 2, 1).reshape(n, k, ho, wo).astype(np.float32)


def maxpool(x, a):
    kh, kw = a["kernel_shape"]
    strides, pads = a.get("strides", [1, 1]), a.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, :: strides[0], :: strides[1]]
    return windows.max(axis=(4, 5))


def layer_norm(x, a):
    mean = x[0].mean(axis=-1, keepdims=True)
    var = ((x[0] - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x[0] - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * x[1] + x[2]


def softmax(x, a):
    e = np.exp(x[0] - x[0].max(axis=a.get("axis", -1), keepdims=True))
    return e / e.sum(axis=a.get("axis", -1), keepdims=True)


# The ops of the transformer layer make-models.py writes, in numpy (float32 kept as float32; shapes
# as int64).
TRANSFORMER_OPS = {
    "MatMul": lambda x, a: x[0] @ x[1],
    "Sub": lambda x, a: x[0] - x[1],
    "Mul": lambda x, a: x[0] * x[1],
    "Div": lambda x, a: x[0] / x[1],
    "Erf": lambda x, a: np.vectorize(math.erf, otypes=[np.float32])(x[0]),
    "Softmax": softmax,
    "LayerNormalization": layer_norm,
    "Transpose": lambda x, a: x[0].transpose(a["perm"]),
    "Reshape": lambda x, a: x[0].reshape(tuple(int(d) if d != 0 else x[0].shape[i] for i, d in enumerate(x[1]))),
    "Shape": lambda x, a: np.array(x[0].shape, np.int64),
    "Gather": lambda x, a: np.take(x[0], x[1], axis=a.get("axis", 0)),
    "Unsqueeze": lambda x, a: np.expand_dims(x[0], tuple(int(d) for d in (x[1] if len(x) > 1 else a["axes"]))),
    "Concat": lambda x, a: np.concatenate(x, axis=a["axis"]),
    "Cast": lambda x, a: x[0].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[a["to"]]),
}


def run_float(model, feeds):
    """Every tensor's value on `feeds`: the ops of the CNNs make-models.py writes, in numpy."""
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values.update(feeds)
    for n in model.graph.node:
        x = [values[i] if i else None for i in n.input]
        a = attrs_of(n)
        op = n.op_type
        if op == "Conv":
            y = conv2d(x[0], x[1], x[2] if len(x) > 2 else 0, a)
        elif op == "Relu":
            y = np.maximum(x[0], 0)
        elif op == "Clip":
            lo = x[1] if len(x) > 1 and x[1] is not None else a.get("min", -np.inf)
            hi = x[2] if len(x) > 2 and x[2] is not None else a.get("max", np.inf)
            y = np.clip(x[0], lo, hi)
        elif op == "Add":
            y = x[0] + x[1]
        elif op == "MaxPool":
            y = maxpool(x[0], a)
        elif op == "GlobalAveragePool":
            y = x[0].mean(axis=(2, 3), keepdims=True)
        elif op == "Flatten":
            y = x[0].reshape(x[0].shape[0], -1)
        elif op == "Gemm":
            w = x[1].T if a.get("transB", 0) else x[1]
            y = a.get("alpha", 1.0) * (x[0] @ w) + a.get("beta", 1.0) * x[2]
        elif op in TRANSFORMER_OPS:
            y = TRANSFORMER_OPS[op](x, a)
        else:
            raise SystemExit(f"make-qdq-models: no calibration for op {op} (node {n.name})")
        values[n.output[0]] = y.astype(np.float32) if y.dtype == np.float64 else y
    return values


def activation_params(lo, hi):
    """uint8 with a zero point: the range widened to hold 0, as ONNX Runtime's quantizer does."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zero_point = int(np.clip(round(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zero_point)


class Quantizer:
    def __init__(self, model, ranges):
        self.g = model.graph
        self.ranges = ranges
        self.inits = {t.name: t for t in self.g.initializer}
        self.new_nodes = []
        self.scales = {}

    def add_init(self, array, name):
        self.g.initializer.append(numpy_helper.from_array(array, name))
        return name

    def qdq(self, tensor):
        """tensor -> QuantizeLinear -> DequantizeLinear; returns the dequantized name."""
        scale, zp = activation_params(*self.ranges[tensor])
        self.scales[tensor] = scale
        s = self.add_init(np.array(scale, np.float32), tensor + "_scale")
        z = self.add_init(np.array(zp, np.uint8), tensor + "_zero_point")
        q, dq = tensor + "_quantized", tensor + "_dequantized"
        self.new_nodes.append(helper.make_node("QuantizeLinear", [tensor, s, z], [q], name=tensor + "_QuantizeLinear"))
        self.new_nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [dq], name=tensor + "_DequantizeLinear"))
        return dq

    def weight(self, name, axis):
        """An int8 per-channel weight and its DequantizeLinear; returns (dequantized name, scales)."""
        w = numpy_helper.to_array(self.inits[name])
        reduce = tuple(d for d in range(w.ndim) if d != axis)
        scale = (np.abs(w).max(axis=reduce) / 127.0).astype(np.float32)
        scale[scale == 0] = 1.0
        shape = [1] * w.ndim
        shape[axis] = -1
        wq = np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)
        q, s, z = (self.add_init(wq, name + "_quantized"), self.add_init(scale, name + "_scale"),
                   self.add_init(np.zeros(scale.shape, np.int8), name + "_zero_point"))
        dq = name + "_dequantized"
        self.new_nodes.append(helper.make_node("DequantizeLinear", [q, s, z], [dq], name=name + "_DequantizeLinear", axis=axis))
        return dq, scale

    def bias(self, name, scale):
        """An int32 bias at `scale` per channel and its DequantizeLinear."""
        b = numpy_helper.to_array(self.inits[name])
        bq = np.rint(b / scale).astype(np.int32)
        q, s = self.add_init(bq, name + "_quantized"), self.add_init(scale.astype(np.float32), name + "_scale")
        dq = name + "_dequantized"
        self.new_nodes.append(helper.make_node("DequantizeLinear", [q, s], [dq], name=name + "_DequantizeLinear", axis=0))
        return dq


def quantize(model, ranges):
    q = Quantizer(model, ranges)
    g = model.graph
    consumers = readers_of(g)
    graph_outputs = {o.name for o in g.output}
    dequantized = {}
    for inp in g.input:
        if inp.name not in q.inits:
            dequantized[inp.name] = q.qdq(inp.name)
    out_nodes = []
    for n in g.node:
        for k, i in enumerate(n.input):
            if i in dequantized:
                n.input[k] = dequantized[i]
        if n.op_type in ("Conv", "Gemm"):
            axis = 0
            act_scale = q.scales[[t for t, d in dequantized.items() if d == n.input[0]][0]]
            n.input[1], w_scale = q.weight(n.input[1], axis)
            if len(n.input) > 2:
                n.input[2] = q.bias(n.input[2], act_scale * w_scale)
        out_nodes.extend(q.new_nodes)
        q.new_nodes = []
        out_nodes.append(n)
        out = n.output[0]
        readers = consumers.get(out, [])
        fused_relu = n.op_type in ("Conv", "Gemm") and len(readers) == 1 and readers[0].op_type in ACTIVATIONS
        if n.op_type in QUANTIZED_OUTPUTS and not fused_relu and out not in graph_outputs:
            dequantized[out] = q.qdq(out)
            out_nodes.extend(q.new_nodes)
            q.new_nodes = []
    del g.node[:]
    g.node.extend(out_nodes)
    drop_unused_initializers(g)  # the float weights the int8 ones replace


def calibrate(model, feeds_of, seed, samples=4):
    """Each float tensor's range over `samples` runs on the inputs feeds_of(rng) makes."""
    rng = np.random.default_rng(seed)
    ranges = {}
    for _ in range(samples):
        for name, v in run_float(model, feeds_of(rng)).items():
            if v.dtype != np.float32:
                continue
            lo, hi = float(v.min()), float(v.max())
            old = ranges.get(name, (math.inf, -math.inf))
            ranges[name] = (min(old[0], lo), max(old[1], hi))
    return ranges


def qdq_cnn(path, input_shape, seed):
    model = onnx.load(path)
    # Per-channel DequantizeLinear (its axis) needs opset 13; the CNNs' ops mean the same there.
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = max(opset.version, 13)
    fold_batchnorm(model)
    image = model.graph.input[0].name
    quantize(model, calibrate(model, lambda rng: {image: rng.standard_normal(input_shape).astype(np.float32)}, seed))
    model.graph.name += "_qdq"
    model.producer_name = "tunefarm make-qdq-models.py"
    onnx.checker.check_model(model, full_check=True)
    return model


def quantize_transformer(model, ranges):
    """QDQ on the input of each MatMul with a constant weight, an int8 weight per column, QDQ on the
    output of the bias Add after it."""
    q = Quantizer(model, ranges)
    g = model.graph
    consumers = readers_of(g)
    dequantized = {}  # float tensor -> its QDQ pair's output, made once for all its quantized readers
    requantize_after = set()
    out_nodes = []
    for n in g.node:
        if n.op_type == "MatMul" and n.input[1] in q.inits:
            x = n.input[0]
            if x not in dequantized:
                dequantized[x] = q.qdq(x)
                out_nodes.extend(q.new_nodes)
                q.new_nodes = []
            n.input[0] = dequantized[x]
            n.input[1], _ = q.weight(n.input[1], axis=1)
            out_nodes.extend(q.new_nodes)
            q.new_nodes = []
            readers = consumers.get(n.output[0], [])
            if len(readers) == 1 and readers[0].op_type == "Add":
                requantize_after.add(readers[0].output[0])
        out_nodes.append(n)
        out = n.output[0]
        if out in requantize_after:
            dq = q.qdq(out)
            out_nodes.extend(q.new_nodes)
            q.new_nodes = []
            for reader in consumers.get(out, []):
                for k, i in enumerate(reader.input):
                    if i == out:
                        reader.input[k] = dq
    del g.node[:]
    g.node.extend(out_nodes)
    drop_unused_initializers(g)


def qdq_transformer(path, input_shape, seed):
    model = onnx.load(path)
    hidden, mask = model.graph.input[0].name, model.graph.input[1].name
    ranges = calibrate(model, lambda rng: {hidden: rng.standard_normal(input_shape).astype(np.float32),
                                           mask: np.zeros([input_shape[0], 1, 1, input_shape[1]], np.float32)},
                       seed, samples=2)
    quantize_transformer(model, ranges)
    model.graph.name += "_qdq"
    model.producer_name = "tunefarm make-qdq-models.py"
    onnx.checker.check_model(model, full_check=True)
    return model


def to_qlinear(model):
    """Each DequantizeLinear -> Conv(DQ weight, DQ bias) [-> Relu] -> QuantizeLinear as one QLinearConv."""
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    consumers = readers_of(g)
    inits = {t.name: t for t in g.initializer}
    replaced, dropped = {}, set()
    for conv in g.node:
        if conv.op_type != "Conv":
            continue
        x, w, b = (producer.get(i) for i in conv.input[:3])
        if any(p is None or p.op_type != "DequantizeLinear" for p in (x, w, b)):
            continue
        last = conv
        if len(consumers[conv.output[0]]) == 1 and consumers[conv.output[0]][0].op_type == "Relu":
            last = consumers[conv.output[0]][0]
            zero_point = numpy_helper.to_array(inits[consumers[last.output[0]][0].input[2]])
            if int(zero_point) != 0:
                continue  # the Relu would not be the quantization's saturation
        readers = consumers.get(last.output[0], [])
        if len(readers) != 1 or readers[0].op_type != "QuantizeLinear":
            continue
        q = readers[0]
        qlinear = helper.make_node(
            "QLinearConv", [x.input[0], x.input[1], x.input[2], w.input[0], w.input[1], w.input[2], q.input[1], q.input[2], b.input[0]],
            [q.output[0]], name=conv.name + "_QLinearConv", **attrs_of(conv))
        replaced[id(q)] = qlinear
        dropped.update(id(n) for n in (conv, last, w, b))
    nodes = [replaced.get(id(n), n) for n in g.node if id(n) not in dropped]
    while True:  # the DequantizeLinear nodes only the replaced convs read
        used = {i for n in nodes for i in n.input} | {o.name for o in g.output}
        live = [n for n in nodes if any(o in used for o in n.output)]
        if len(live) == len(nodes):
            break
        nodes = live
    del g.node[:]
    g.node.extend(nodes)
    drop_unused_initializers(g)  # the float biases the int32 ones replace


def qlinear_cnn(path, input_shape, seed):
    model = qdq_cnn(path, input_shape, seed)
    to_qlinear(model)
    model.graph.name = model.graph.name.replace("_qdq", "_qlinear")
    onnx.checker.check_model(model, full_check=True)
    return model


MODELS = [("resnet18_qdq", "resnet18.onnx", [1, 3, 224, 224], qdq_cnn),
          ("resnet18_qlinear", "resnet18.onnx", [1, 3, 224, 224], qlinear_cnn),
          ("mobilenetv2_qdq", "mobilenetv2.onnx", [1, 3, 224, 224], qdq_cnn),
          ("bert_layer_qdq", "bert_layer.onnx", [1, 128, 768], qdq_transformer)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="the folder make-models.py wrote; the QDQ models go beside the float ones")
    args = parser.parse_args()
    for name, source, shape, make in MODELS:
        src = os.path.join(args.dir, source)
        if not os.path.exists(src):
            raise SystemExit(f"make-qdq-models: {src} is missing (write it with scripts/make-models.py {args.dir})")
        path = os.path.join(args.dir, name + ".onnx")
        onnx.save(make(src, shape, seed=31), path + ".tmp")
        os.replace(path + ".tmp", path)
        print(f"make-qdq-models: {path} ({os.path.getsize(path) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

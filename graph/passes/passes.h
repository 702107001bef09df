// Graph passes: each takes a graph and returns a new one that computes the same outputs from the
// same inputs (up to float rounding where it says so), in topological order, shapes known. One
// pass per file; graph/pipeline.cc runs them in order.
#pragma once

#include "graph/graph.h"
#include "graph/plan_options.h"

namespace tf::graph::passes {

// Every node whose inputs are all constants (and Shape, which reads only a shape) is evaluated and
// replaced by its constant output; Identity nodes are bypassed; nodes and constants no output
// depends on are removed. Exact: the folded ops are shape arithmetic, casts and elementwise float
// arithmetic evaluated as the kernels would in float32. `keep_weight_dequantization`: a
// DequantizeLinear of a constant int8 weight stays a node, for fuse_qdq to read.
Graph fold_constants(const Graph& g, bool keep_weight_dequantization = false);

// DequantizeLinear -> Conv [-> Relu] -> QuantizeLinear with uint8 activations and int8 weights
// (zero points 0) becomes one qconv2d / qconv2d_relu node: inputs (xq uint8 [N,C,H,W], weight int8
// [K,C,R,S], bias int32 [K] less x_zero * sum(w), requantize scale float32 [K], zero points int32
// {x, y}), output the QuantizeLinear's uint8 value; plan_layouts runs it as qconv2d_nchwc. Equal to
// the float nodes up to one quantization step (see fuse_qdq.cc).
Graph fuse_qdq(const Graph& g);

// A 1-D Conv or pool runs as a 2-D one over [N,C,1,L] between Reshapes (graph/ops/window.h). The
// elementwise and BatchNormalization nodes between two of them run on [N,C,1,L] too, so the
// Reshapes between go and the passes after see Conv -> BatchNormalization -> Relu -> Conv as for
// an image; a [N,C,L] value read elsewhere stays, as a Reshape of the wider one. Exact.
Graph lift_unit_height(const Graph& g);

// A BatchNormalization reading a Conv's output, where nothing else reads the Conv and the Conv's
// weight (and bias) and the normalization's scale, shift, mean and variance are constants, is folded
// into the Conv: W' = W * s, b' = (b - mean) * s + shift with s = scale / sqrt(var + eps). The Conv
// gains a bias if it had none. Changes results by float rounding only.
Graph fold_batchnorm(const Graph& g);

// Layer normalization over the last axis written out (ReduceMean, Sub, Pow or Mul, ReduceMean, Add
// epsilon, Sqrt, Div, then Mul by a per-column gamma and Add a per-column beta, each optional), as
// exporters before opset 17 write it, becomes one LayerNormalization node (the layer_norm kernel).
// Shared intermediate values leave the nodes alone. Changes results by float rounding only.
Graph fuse_layer_norm(const Graph& g);

// Scaled dot-product attention over [B, rows, H, D] heads, as exporters write it (Transpose each of
// Q, K, V; MatMul; Div or Mul by a scalar constant; Add a per-key mask; Softmax on the last axis;
// MatMul by V; Transpose back), becomes one attention / attention_masked node on the untransposed
// Q, K, V (compiler/ops/attention.cc), attribute `workload_shape` {B, S, T, H, D, scale_e9}. Other
// masks, scales or shared intermediate values leave the nodes alone. Changes results by float
// rounding only.
Graph fuse_attention(const Graph& g);

// The producer's epilogue moves into a fused kernel of compiler/ops:
//   Conv (+ constant bias)            -> conv2d | conv2d_bias
//     then Add(constant [K,1,1])      -> conv2d_bias            (a bias written as its own node)
//     then Relu                       -> conv2d_bias_relu
//     then Add(residual)              -> conv2d_bias_add        (residual of the output's shape)
//       then Relu                     -> conv2d_bias_add_relu
//     then Clip(0, 6)                 -> conv2d_bias_clip
//   a 3-D Conv (rank-5 input)         -> conv3d | conv3d_bias, then Relu -> conv3d_bias_relu
//   MatMul / Gemm with a constant 2-D weight (Gemm's transB applied to the constant):
//     alone                           -> dense
//     then Add(constant bias [N])     -> dense_bias             (Gemm's C the same)
//     then Relu                       -> dense_bias_relu
//     then Add(residual of the output's shape) -> dense_bias_add
//   Any other MatMul whose operands have the same leading extents (attention: both computed) -> dense;
//     when they are batched, with attribute batch (the product of the leading extents: one dense
//     kernel call per matrix).
// A conv without a bias gains a zero one where the fused kernel needs it. An intermediate value
// read elsewhere, or a graph output, is never swallowed. Exact up to the kernels' summation order:
// the epilogue's operations per element are the ones the separate nodes did.
Graph fuse_epilogues(const Graph& g);

// Chains of elementwise nodes (Add, Sub, Mul, Div, Pow, Relu, Clip, Sigmoid, Erf, Tanh, Sqrt) whose
// intermediate values have a single reader and the chain's output shape become one fused_elementwise
// node: its body is the chain as a graph, its inputs the chain's outside inputs (constants stay
// inputs). A lone elementwise node stays as it is. Exact.
Graph fuse_elementwise(const Graph& g);

// A dense_bias whose output feeds GELU alone (the elementwise nodes after it, fused or not, that
// read only it, scalar constants and each other, none of their values read elsewhere), in the erf
// form or the tanh approximation, becomes dense_bias_gelu / _gelu_tanh: the nodes are recognised
// by evaluating their expression against both forms, whatever order the exporter wrote them in.
// Changes results by float rounding only (the kernel's erf and tanh).
Graph fuse_dense_activation(const Graph& g);

// Every dense* (not dense_nt, not batched) whose weight is a constant [K, N] becomes its
// dense_packed* twin reading the weight packed here, at build time, into panels
// [ceil(N/32)][K][32] (zero past N); the node carries attribute `workload_shape` {M, N, K, 32}.
// A qdense becomes qdense_packed, or with `centered_int8` qdense_packed_centered where its weights
// allow (centered_bias.h). Exact.
Graph pack_dense_weights(const Graph& g, int64_t panel, bool centered_int8 = false);

// Every conv2d* of groups 1 becomes conv2d_nchwc* and every depthwise one depthwise_nchwc*, weights
// packed and biases blocked here (build time): activations stay blocked between convolutions, input
// channels blocked by min(c, 16) (a 3-channel first layer is not padded to 16), outputs by 16.
// Where a blocked value is read plainly (pooling, a graph output) one layout_from_nchwc makes the
// plain value under its original name; a plain value a blocked conv reads gets one layout_to_nchwc.
// A conv whose weight or bias is computed, not constant, stays plain. A qconv2d runs as
// qconv2d_nchwc, or with options.centered_int8 as qconv2d_nchwc_centered where its weights allow
// (centered_bias.h). The nodes it makes carry attribute `workload_shape` (their op's positional extents). Exact: the
// blocked kernels compute the same sums per element.
// With options.blocked_layouts off, the graph is returned as it is.
Graph plan_layouts(const Graph& g, const PlanOptions& options);

}  // namespace tf::graph::passes

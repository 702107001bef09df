// A test-only reference evaluator for small graphs: runs every node of a graph (ONNX ops and the
// fused kernels the passes make) in plain loops, so a pass can be checked to leave a graph's
// outputs unchanged. Never used at run time: a model runs generated kernels.
#pragma once

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "compiler/error.h"
#include "compiler/ops/conv2d_shape.h"
#include "compiler/ops/dense_epilogue.h"
#include "compiler/ops/registry.h"
#include "graph/constant_eval.h"
#include "graph/graph.h"
#include "graph/tasks.h"

namespace tf::graph::testing {

using Values = std::map<std::string, Tensor>;

inline Tensor zeros(const Shape& s) { return Tensor::floats(s, std::vector<float>(element_count(s), 0.0f)); }

inline Tensor random_tensor(const Shape& s, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(element_count(s));
  for (auto& x : v) x = d(rng);
  return Tensor::floats(s, std::move(v));
}

class Evaluator {
 public:
  explicit Evaluator(const Graph& g) : g_(g) {}

  // The graph's outputs, by name, from its inputs (by name).
  Values run(const Values& inputs) {
    for (const auto& [name, v] : g_.values()) {
      if (v.is_constant()) values_[name] = *v.data;
    }
    for (const auto& [name, t] : inputs) values_[name] = t;
    for (const Node& n : g_.nodes) values_[n.outputs[0]] = eval(n);
    Values out;
    for (const auto& name : g_.outputs) out[name] = values_.at(name);
    return out;
  }

 private:
  const Tensor* arg(const Node& n, size_t i) { return g_.input_present(n, i) ? &values_.at(n.inputs[i]) : nullptr; }
  const Shape& out_shape(const Node& n) { return g_.value(n.outputs[0]).shape; }

  Tensor eval(const Node& n) {
    std::vector<const Tensor*> in;
    for (size_t i = 0; i < n.inputs.size(); ++i) in.push_back(arg(n, i));
    if (n.op == kFusedElementwise) {
      Values body_inputs;
      for (size_t i = 0; i < n.inputs.size(); ++i) body_inputs[n.body->inputs[i]] = *in[i];
      return Evaluator(*n.body).run(body_inputs).begin()->second;
    }
    if (is_constant_foldable(n.op)) return evaluate_constant_node(g_, n, in)[0];
    if (n.op == "Conv" || n.op.rfind("conv2d", 0) == 0) return conv(n, in);
    if (n.op == "MatMul" || n.op == "Gemm" || n.op.rfind("dense", 0) == 0) return matmul(n, in);
    if (n.op == "BatchNormalization") return batchnorm(n, in);
    if (n.op == "MaxPool" || n.op == "AveragePool" || n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool")
      return pool(n, *in[0]);
    if (n.op == "Softmax" || n.op == "LogSoftmax" || n.op == "Hardmax") return along_axis(n, *in[0]);
    if (n.op == "LayerNormalization") return layer_norm(n, in);
    if (n.op.rfind("attention", 0) == 0) return by_operator_reference(n, in);
    throw CompileError("test evaluator: no rule for " + n.describe());
  }

  // A kernel node a graph pass made (its extents in workload_shape), by its operator's own
  // double-precision reference.
  Tensor by_operator_reference(const Node& n, const std::vector<const Tensor*>& in) {
    std::vector<const float*> inputs;
    for (const Tensor* t : in) inputs.push_back(t->f32.data());
    std::vector<float> out, tolerance;
    ops::find_operator(n.op).reference(n.attr_ints("workload_shape", {}), inputs, &out, &tolerance);
    return Tensor::floats(out_shape(n), out);
  }

  Tensor conv(const Node& n, const std::vector<const Tensor*>& in) {
    const ops::Conv2dShape s = conv2d_shape(g_, n);
    ops::Conv2dEpilogue e;
    if (in.size() > 2 && in[2]) e.bias = in[2]->f32.data();
    if (n.op == "conv2d_bias_add_relu" || n.op == "conv2d_bias_add") e.residual = in[3]->f32.data();
    e.relu = n.op == "conv2d_bias_relu" || n.op == "conv2d_bias_add_relu";
    e.clip6 = n.op == "conv2d_bias_clip";
    std::vector<float> out, tolerance;
    ops::conv2d_reference(s, in[0]->f32.data(), in[1]->f32.data(), e, &out, &tolerance);
    return Tensor::floats(out_shape(n), out);
  }

  // A[..., M, K] x B[..., K, N] (B of rank 2 shared by all), Gemm's transB, a bias over N, relu.
  Tensor matmul(const Node& n, const std::vector<const Tensor*>& in) {
    const Tensor &a = *in[0], &b = *in[1];
    const Shape& o = out_shape(n);
    const bool tb = n.op == "Gemm" && n.attr_int("transB", 0);
    const int64_t M = o[o.size() - 2], N = o.back(), K = a.shape.back();
    const int64_t batches = element_count(o) / (M * N);
    const bool shared_b = b.shape.size() == 2;
    Tensor c = zeros(o);
    for (int64_t bt = 0; bt < batches; ++bt) {
      const float* A = a.f32.data() + bt * M * K;
      const float* B = b.f32.data() + (shared_b ? 0 : bt * K * N);
      std::vector<double> row(N);
      for (int64_t i = 0; i < M; ++i) {
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t k = 0; k < K; ++k) {
          const double x = A[i * K + k];
          for (int64_t j = 0; j < N; ++j) row[j] += x * (tb ? B[j * K + k] : B[k * N + j]);
        }
        for (int64_t j = 0; j < N; ++j) {
          double acc = row[j];
          if (in.size() > 2 && in[2])
            acc += in[2]->f32[in[2]->size() == 1 ? 0 : in[2]->size() == N ? j : in[2]->size() == M ? i : i * N + j];
          if (n.op == "dense_bias_relu") acc = std::max(acc, 0.0);
          if (n.op == "dense_bias_gelu") acc = ops::gelu_erf(acc);
          if (n.op == "dense_bias_gelu_tanh") acc = ops::gelu_tanh(acc);
          if (n.op == "dense_bias_add") acc += in[3]->f32[bt * M * N + i * N + j];
          c.f32[bt * M * N + i * N + j] = static_cast<float>(acc);
        }
      }
    }
    return c;
  }

  Tensor batchnorm(const Node& n, const std::vector<const Tensor*>& in) {
    Tensor y = *in[0];
    const int64_t C = y.shape[1], inner = element_count(Shape(y.shape.begin() + 2, y.shape.end()));
    const double eps = n.attr_float("epsilon", 1e-5);
    for (int64_t i = 0; i < y.size(); ++i) {
      const int64_t c = (i / inner) % C;
      y.f32[i] = static_cast<float>((y.f32[i] - in[3]->f32[c]) / std::sqrt(in[4]->f32[c] + eps) * in[1]->f32[c] +
                                    in[2]->f32[c]);
    }
    return y;
  }

  Tensor pool(const Node& n, const Tensor& x) {
    const Shape& o = out_shape(n);
    const bool global = n.op == "GlobalAveragePool" || n.op == "GlobalMaxPool",
               max = n.op == "MaxPool" || n.op == "GlobalMaxPool";
    const auto k = global ? std::vector<int64_t>{x.shape[2], x.shape[3]} : n.attr_ints("kernel_shape", {});
    const auto st = n.attr_ints("strides", {1, 1}), p = n.attr_ints("pads", {0, 0, 0, 0});
    const bool include_pad = n.attr_int("count_include_pad", 0) != 0;
    Tensor y = zeros(o);
    const int64_t H = x.shape[2], W = x.shape[3];
    for (int64_t nc = 0; nc < o[0] * o[1]; ++nc) {
      for (int64_t oy = 0; oy < o[2]; ++oy) {
        for (int64_t ox = 0; ox < o[3]; ++ox) {
          double acc = max ? -INFINITY : 0;
          int64_t count = 0;
          for (int64_t ky = 0; ky < k[0]; ++ky) {
            for (int64_t kx = 0; kx < k[1]; ++kx) {
              const int64_t iy = oy * st[0] - p[0] + ky, ix = ox * st[1] - p[1] + kx;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) {
                count += include_pad;
                continue;
              }
              const double v = x.f32[(nc * H + iy) * W + ix];
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            }
          }
          y.f32[(nc * o[2] + oy) * o[3] + ox] = static_cast<float>(max ? acc : acc / count);
        }
      }
    }
    return y;
  }

  // Softmax, LogSoftmax or Hardmax along the node's axis: x seen as [rows, cols, inner].
  Tensor along_axis(const Node& n, const Tensor& x) {
    Tensor y = x;
    const int64_t axis = n.attr_int("axis", -1) < 0 ? n.attr_int("axis", -1) + static_cast<int64_t>(x.shape.size())
                                                    : n.attr_int("axis", -1);
    const int64_t cols = x.shape[axis], inner = element_count(Shape(x.shape.begin() + axis + 1, x.shape.end()));
    for (int64_t row = 0; row < x.size() / (cols * inner); ++row) {
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t c) { return (row * cols + c) * inner + i; };
        double mx = -INFINITY, sum = 0;
        int64_t first_max = 0;
        for (int64_t c = 0; c < cols; ++c) {
          if (x.f32[at(c)] > mx) mx = x.f32[at(c)], first_max = c;
        }
        for (int64_t c = 0; c < cols; ++c) sum += std::exp(x.f32[at(c)] - mx);
        for (int64_t c = 0; c < cols; ++c) {
          const double v = x.f32[at(c)] - mx;
          y.f32[at(c)] = static_cast<float>(n.op == "Softmax"      ? std::exp(v) / sum
                                            : n.op == "LogSoftmax" ? v - std::log(sum)
                                                                   : c == first_max);
        }
      }
    }
    return y;
  }

  // LayerNormalization over the axes from the node's axis on (scale, shift).
  Tensor layer_norm(const Node& n, const std::vector<const Tensor*>& in) {
    Tensor y = *in[0];
    const int64_t axis = n.attr_int("axis", -1) < 0 ? n.attr_int("axis", -1) + static_cast<int64_t>(y.shape.size())
                                                    : n.attr_int("axis", -1);
    const int64_t D = element_count(Shape(y.shape.begin() + axis, y.shape.end()));
    for (int64_t row = 0; row < y.size() / D; ++row) {
      float* v = y.f32.data() + row * D;
      double mean = 0, var = 0;
      for (int64_t i = 0; i < D; ++i) mean += v[i] / double(D);
      for (int64_t i = 0; i < D; ++i) var += (v[i] - mean) * (v[i] - mean) / double(D);
      const double inv = 1 / std::sqrt(var + n.attr_float("epsilon", 1e-5));
      for (int64_t i = 0; i < D; ++i)
        v[i] = static_cast<float>((v[i] - mean) * inv * in[1]->f32[i] + (in.size() > 2 && in[2] ? in[2]->f32[i] : 0));
    }
    return y;
  }

  const Graph& g_;
  Values values_;
};

// The largest |a - b| / (1 + |b|) over the elements.
inline double max_relative_difference(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(double(a.f32[i]) - b.f32[i]) / (1 + std::abs(double(b.f32[i]))));
  return worst;
}

}  // namespace tf::graph::testing

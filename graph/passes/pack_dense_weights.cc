// A dense kernel with a constant weight reads it as panels of P columns ([ceil(N/P)][K][P], zero
// past N): the layout its register tile streams. Packing inside the kernel would rewrite the whole
// weight on every run (a third of a BERT FFN's time at M = 128, most of a classifier's at M = 1),
// so it is done here, once, at build time, and the node becomes its dense_packed* twin. A qdense
// node's int8 weight (fuse_qdq) is packed the same way with four k per lane, as qdense_packed reads
// it ([ceil(N/P)][K/4][P][4]); with `centered_int8` it becomes qdense_packed_centered where its
// weights allow (centered_bias.h).
#include <optional>

#include "compiler/ops/registry.h"
#include "graph/passes/centered_bias.h"
#include "graph/passes/passes.h"

namespace tf::graph::passes {
namespace {

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// "dense_bias_gelu" -> "dense_packed_bias_gelu"; "" where the op has no packed twin.
std::string packed_twin(const std::string& op) {
  if (!starts_with(op, "dense") || starts_with(op, "dense_nt") || starts_with(op, "dense_packed")) return "";
  const std::string twin = "dense_packed" + op.substr(std::string("dense").size());
  return ops::has_operator(twin) ? twin : "";
}

Tensor pack_panels(const Tensor& w, int64_t p) {
  const int64_t K = w.shape[0], N = w.shape[1], panels = (N + p - 1) / p;
  std::vector<float> out(static_cast<size_t>(panels * K * p), 0.0f);
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t n = 0; n < N; ++n)
      out[static_cast<size_t>(((n / p) * K + k) * p + n % p)] = w.f32[static_cast<size_t>(k * N + n)];
  }
  return Tensor::floats({panels, K, p}, std::move(out));
}

// An int8 weight [K, N] as qdense_packed reads it.
Tensor pack_int8_panels(const Tensor& w, int64_t p) {
  const int64_t K = w.shape[0], N = w.shape[1], panels = (N + p - 1) / p;
  std::vector<int64_t> out(static_cast<size_t>(panels * K * p), 0);
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t n = 0; n < N; ++n)
      out[static_cast<size_t>((((n / p) * (K / 4) + k / 4) * p + n % p) * 4 + k % 4)] =
          w.i64[static_cast<size_t>(k * N + n)];
  }
  return Tensor::ints({panels, K / 4, p, 4}, std::move(out), DType::Int8);
}

}  // namespace

Graph pack_dense_weights(const Graph& in, int64_t panel, bool centered_int8) {
  Graph g = in;
  for (Node& n : g.nodes) {
    if (n.op == "qdense") {
      const Tensor& w = *g.constant(n.inputs[1]);
      const Shape& a = g.input_of(n, 0).shape;
      const int64_t K = w.shape[0], N = w.shape[1], M = element_count(Shape(a.begin(), a.end() - 1));
      std::optional<Tensor> bias;
      if (centered_int8) bias = centered_bias(w, *g.constant(n.inputs[2]), [&](int64_t i) { return i % N; });
      const std::string packed = g.unique_name(n.inputs[1] + ".panels");
      g.set_constant(packed, pack_int8_panels(w, panel));
      n.op = bias ? "qdense_packed_centered" : "qdense_packed";
      n.inputs[1] = packed;
      if (bias) {
        n.inputs[2] = g.unique_name(n.inputs[2] + ".centered");
        g.set_constant(n.inputs[2], std::move(*bias));
      }
      n.attrs = {{"workload_shape", std::vector<int64_t>{M, N, K, panel}}};
      continue;
    }
    const std::string twin = packed_twin(n.op);
    const Tensor* w = twin.empty() || n.has("batch") ? nullptr : g.constant(n.inputs[1]);
    if (!w || w->dtype != DType::Float32 || w->shape.size() != 2) continue;
    const Shape& a = g.input_of(n, 0).shape;
    const int64_t K = w->shape[0], N = w->shape[1];
    if (a.empty() || a.back() != K) continue;
    const int64_t M = element_count(Shape(a.begin(), a.end() - 1));
    const std::string packed = g.unique_name(n.inputs[1] + ".panels");
    Tensor t = pack_panels(*w, panel);
    const Shape s = t.shape;
    g.set_value(Value{packed, DType::Float32, s, std::make_shared<const Tensor>(std::move(t))});
    n.op = twin;
    n.inputs[1] = packed;
    n.attrs = {{"workload_shape", std::vector<int64_t>{M, N, K, panel}}};
  }
  g.remove_unused_values();
  return g;
}

}  // namespace tf::graph::passes

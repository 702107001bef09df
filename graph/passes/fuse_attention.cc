// Scaled dot-product attention as exporters write it from a transformer's [B, rows, H, D] heads:
//
//   Qt = Transpose(Q, [0,2,1,3])   Kt = Transpose(K, [0,2,3,1])   Vt = Transpose(V, [0,2,1,3])
//   P  = Softmax(MatMul(Qt, Kt) [/ c | * c] [+ mask], last axis)
//   O  = Transpose(MatMul(P, Vt), [0,2,1,3])
//
// becomes one attention / attention_masked node reading Q, K, V (and the mask as [B, T]) and
// writing O: the scores never reach memory and no Transpose runs. The mask must be one row per key
// broadcast over heads and query rows ([B or 1, 1, 1, T], BERT's padding mask); other masks, a
// scale that is not a scalar constant, or an intermediate value read elsewhere leave the nodes as
// they are. Changes results by float rounding only (the kernel's exp and summation order).
#include <cmath>
#include <optional>

#include "graph/passes/passes.h"
#include "graph/passes/pattern.h"

namespace tf::graph::passes {
namespace {

constexpr int64_t kScaleUnits = 1000000000;  // scale_e9: the scale in units of 1e-9

struct Attention {
  std::string q, k, v, mask, output;
  int64_t scale_e9 = kScaleUnits;
  std::vector<size_t> nodes;  // replaced
};

bool has_perm(const Node& n, const std::vector<int64_t>& perm) {
  return n.op == "Transpose" && n.attr_ints("perm", {}) == perm;
}

// The rank-4 value a Transpose with `perm` reads to make `value` (read only by the chain).
std::optional<std::string> transposed_from(const Graph& g, const std::string& value, const std::vector<int64_t>& perm,
                                           Attention& a) {
  const int t = sole_producer(g, value, "Transpose");
  if (t < 0 || !has_perm(g.nodes[t], perm) || g.value(g.nodes[t].inputs[0]).shape.size() != 4) return std::nullopt;
  a.nodes.push_back(static_cast<size_t>(t));
  return g.nodes[t].inputs[0];
}

// The scale of a Div or Mul by a positive scalar constant, in units of 1e-9; nullopt otherwise.
std::optional<int64_t> scale_of(const Graph& g, const Node& n) {
  const Tensor* c = g.constant(n.inputs[1]);
  if (!c || c->size() != 1 || !c->is_float()) return std::nullopt;
  const double s = n.op == "Div" ? 1.0 / c->at(0) : c->at(0);
  const double units = std::round(s * kScaleUnits);
  if (!(units >= 1 && units <= 1e15)) return std::nullopt;
  return static_cast<int64_t>(units);
}

// A mask one row per key: [1|B, 1, 1, T] (or fewer leading ones), float32.
bool key_mask(const Graph& g, const std::string& name, int64_t batch, int64_t keys) {
  const Value& m = g.value(name);
  if (m.dtype != DType::Float32 || m.shape.empty() || m.shape.size() > 4 || m.shape.back() != keys) return false;
  Shape s(4 - m.shape.size(), 1);
  s.insert(s.end(), m.shape.begin(), m.shape.end());
  return s[1] == 1 && s[2] == 1 && (s[0] == batch || batch == 1);
}

// The softmax input's chain back to Q K^T: [Add mask] after [Div|Mul scale] after MatMul.
bool match_scores(const Graph& g, const std::string& logits, int64_t batch, int64_t keys, Attention& a) {
  std::string value = logits;
  int n = g.producer(value);
  if (n >= 0 && g.nodes[n].op == "Add" && g.use_count(value) == 1) {
    const Node& add = g.nodes[n];
    for (int side = 0; side < 2 && a.mask.empty(); ++side) {
      const int other = g.producer(add.inputs[side]);
      const bool chain =
          other >= 0 && (g.nodes[other].op == "Div" || g.nodes[other].op == "Mul" || g.nodes[other].op == "MatMul");
      if (chain && key_mask(g, add.inputs[1 - side], batch, keys)) {
        a.mask = add.inputs[1 - side];
        value = add.inputs[side];
      }
    }
    if (a.mask.empty()) return false;
    a.nodes.push_back(static_cast<size_t>(n));
    n = g.producer(value);
  }
  if (n >= 0 && (g.nodes[n].op == "Div" || g.nodes[n].op == "Mul") && g.use_count(value) == 1) {
    const auto scale = scale_of(g, g.nodes[n]);
    if (!scale) return false;
    a.scale_e9 = *scale;
    a.nodes.push_back(static_cast<size_t>(n));
    value = g.nodes[n].inputs[0];
  }
  const int mm = sole_producer(g, value, "MatMul");
  if (mm < 0) return false;
  a.nodes.push_back(static_cast<size_t>(mm));
  const auto q = transposed_from(g, g.nodes[mm].inputs[0], {0, 2, 1, 3}, a);
  const auto k = transposed_from(g, g.nodes[mm].inputs[1], {0, 2, 3, 1}, a);
  if (!q || !k) return false;
  a.q = *q, a.k = *k;
  return true;
}

std::optional<Attention> match_attention(const Graph& g, size_t softmax) {
  const Node& sm = g.nodes[softmax];
  const Shape& probs_shape = g.value(sm.inputs[0]).shape;
  if (probs_shape.size() != 4 || sm.attr_int("axis", -1) != 3) return std::nullopt;
  const int pv = sole_reader(g, sm.outputs[0]);
  if (pv < 0 || g.nodes[pv].op != "MatMul" || g.nodes[pv].inputs[0] != sm.outputs[0]) return std::nullopt;
  const int out = sole_reader(g, g.nodes[pv].outputs[0]);
  if (out < 0 || !has_perm(g.nodes[out], {0, 2, 1, 3})) return std::nullopt;

  Attention a;
  a.nodes = {softmax, static_cast<size_t>(pv), static_cast<size_t>(out)};
  a.output = g.nodes[out].outputs[0];
  const auto v = transposed_from(g, g.nodes[pv].inputs[1], {0, 2, 1, 3}, a);
  if (!v || !match_scores(g, sm.inputs[0], probs_shape[0], probs_shape[3], a)) return std::nullopt;
  a.v = *v;
  // Q [B,S,H,D], K and V [B,T,H,D]; the output [B,S,H,D].
  const Shape &q = g.value(a.q).shape, &k = g.value(a.k).shape, &vs = g.value(a.v).shape;
  if (k != vs || q[0] != k[0] || q[2] != k[2] || q[3] != k[3] || g.value(a.output).shape != q) return std::nullopt;
  for (const std::string* x : {&a.q, &a.k, &a.v}) {
    if (g.value(*x).dtype != DType::Float32) return std::nullopt;
  }
  return a;
}

Node attention_node(const Graph& g, const Attention& a) {
  const Shape& q = g.value(a.q).shape;
  const Shape& k = g.value(a.k).shape;
  Node n;
  n.name = g.nodes[a.nodes.front()].name + ".attention";
  n.op = a.mask.empty() ? "attention" : "attention_masked";
  n.inputs = {a.q, a.k, a.v};
  if (!a.mask.empty()) n.inputs.push_back(a.mask);
  n.outputs = {a.output};
  n.attrs["workload_shape"] = std::vector<int64_t>{q[0], q[1], k[1], q[2], q[3], a.scale_e9};
  return n;
}

}  // namespace

Graph fuse_attention(const Graph& in) {
  std::vector<Replacement> found;
  for (size_t i = 0; i < in.nodes.size(); ++i) {
    if (in.nodes[i].op != "Softmax") continue;
    auto a = match_attention(in, i);
    if (!a || overlaps(found, a->nodes)) continue;
    // The new node takes the output Transpose's place (a->nodes[2]): every input is defined by then.
    std::swap(a->nodes[2], a->nodes.back());
    found.push_back(Replacement{a->nodes, attention_node(in, *a)});
  }
  return replace_nodes(in, std::move(found));
}

}  // namespace tf::graph::passes

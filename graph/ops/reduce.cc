// ReduceMean. Its axes are an attribute before opset 18 and an optional input from 18 on, where
// noop_with_empty_axes makes "no axes" mean the identity rather than every axis. Canonical: the
// axes attribute written out in full (sorted, non-negative) and keepdims; a no-op is an Identity.
#include <set>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

std::vector<Node> normalize_reduce(Graph& g, Node n, const OpVersion& v) {
  if (v.since >= 18) rules::input_to_attribute(g, n, 1, "axes");
  const int64_t rank = static_cast<int64_t>(rules::in(g, n, 0).shape.size());
  std::set<int64_t> axes;
  for (int64_t a : n.attr_ints("axes", {})) axes.insert(normalize_axis(a, rank, n, "axes"));
  const bool noop = n.attr_int("noop_with_empty_axes", 0) != 0;
  n.attrs.erase("noop_with_empty_axes");
  if (axes.empty() && noop) {
    n.op = "Identity";
    n.attrs.clear();
    return {std::move(n)};
  }
  if (axes.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.insert(a);
  }
  n.attrs["axes"] = std::vector<int64_t>(axes.begin(), axes.end());
  n.attrs["keepdims"] = n.attr_int("keepdims", 1) != 0 ? int64_t{1} : int64_t{0};
  return {std::move(n)};
}

void infer_reduce(Graph& g, const Node& n) {
  const Shape& x = rules::in(g, n, 0).shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  std::set<int64_t> axes;
  for (int64_t a : n.attr_ints("axes", {})) axes.insert(normalize_axis(a, rank, n, "axes"));
  if (axes.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.insert(a);
  }
  const bool keep = n.attr_int("keepdims", 1) != 0;
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!axes.count(d)) out.push_back(x[d]);
    else if (keep) out.push_back(1);
  }
  rules::set_out(g, n, 0, rules::in(g, n, 0).dtype, out);
}

NodeLowering lower_reduce_mean(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const auto axes = n.attr_ints("axes", {});
  if (axes.size() != 1) rules::fail(n, "attribute 'axes' = " + rules::ints_text(axes) + ": only a reduction over the last axis alone is supported");
  lowering::last_axis_only(g, n, "axes", axes[0]);
  return lowering::call(lowering::named_call(n, "reduce_mean", {{"rows", lowering::leading_product(x, 1)}, {"cols", x.back()}}, lowering::with_output({n.inputs[0]}, n)));
}

}  // namespace

void add_reduce_ops(std::vector<OpDef>& ops) {
  OpDef d;
  d.name = "ReduceMean";
  d.versions = {1, 11, 13, 18};
  d.attributes = {"axes", "keepdims", "noop_with_empty_axes"};
  d.normalize = normalize_reduce;
  d.infer = infer_reduce;
  d.lower = lower_reduce_mean;
  ops.push_back(d);
}

}  // namespace tf::graph

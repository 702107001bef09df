// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum,
// ReduceLogSumExp and ReduceSumSquare over any axes. The axes are an attribute until ReduceSum 13
// and the others 18, an optional input from then on, where noop_with_empty_axes makes "no axes" the
// identity rather than every axis. Canonical: the axes attribute written out in full (sorted,
// non-negative) and keepdims; a no-op is an Identity. Each runs as the compiler's reduce_<kind>
// kernel on the input with adjacent axes of one kind merged (keepdims = 0 is the same output's
// bytes under the shape without the reduced axes).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "graph/ops/lowering.h"
#include "graph/ops/registry.h"
#include "graph/ops/rules.h"
#include "graph/shape_inference.h"

namespace tf::graph {
namespace {

using rules::fail;

enum class Kind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

struct ReduceOp {
  const char* onnx;
  const char* kernel;
  Kind kind;
  int axes_input_since;  // the version from which the axes are input 1
  std::vector<int> versions;
};

const std::vector<ReduceOp>& reduce_ops() {
  static const std::vector<ReduceOp> ops = {
      {"ReduceSum", "reduce_sum", Kind::Sum, 13, {1, 11, 13}},
      {"ReduceMean", "reduce_mean", Kind::Mean, 18, {1, 11, 13, 18}},
      {"ReduceMax", "reduce_max", Kind::Max, 18, {1, 11, 12, 13, 18, 20}},
      {"ReduceMin", "reduce_min", Kind::Min, 18, {1, 11, 12, 13, 18, 20}},
      {"ReduceProd", "reduce_prod", Kind::Prod, 18, {1, 11, 13, 18}},
      {"ReduceL1", "reduce_l1", Kind::L1, 18, {1, 11, 13, 18}},
      {"ReduceL2", "reduce_l2", Kind::L2, 18, {1, 11, 13, 18}},
      {"ReduceLogSum", "reduce_log_sum", Kind::LogSum, 18, {1, 11, 13, 18}},
      {"ReduceLogSumExp", "reduce_log_sum_exp", Kind::LogSumExp, 18, {1, 11, 13, 18}},
      {"ReduceSumSquare", "reduce_sum_square", Kind::SumSquare, 18, {1, 11, 13, 18}},
  };
  return ops;
}

// Which axes of the input the canonical node reduces (every one when the attribute is empty).
std::vector<bool> reduced_axes(const Node& n, int64_t rank) {
  const auto axes = n.attr_ints("axes", {});
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(normalize_axis(a, rank, n, "axes"))] = true;
  return reduced;
}

std::vector<Node> normalize_reduce(Graph& g, Node n, const OpVersion& v, int axes_input_since) {
  if (v.since >= axes_input_since) rules::input_to_attribute(g, n, 1, "axes");
  const int64_t rank = static_cast<int64_t>(rules::in(g, n, 0).shape.size());
  std::set<int64_t> axes;
  for (int64_t a : n.attr_ints("axes", {})) {
    if (!axes.insert(normalize_axis(a, rank, n, "axes")).second)
      fail(n, "attribute 'axes' = " + rules::ints_text(n.attr_ints("axes", {})) + " names an axis twice");
  }
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
  const auto reduced = reduced_axes(n, static_cast<int64_t>(x.size()));
  const bool keep = n.attr_int("keepdims", 1) != 0;
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d])
      out.push_back(x[d]);
    else if (keep)
      out.push_back(1);
  }
  rules::set_out(g, n, 0, rules::in(g, n, 0).dtype, out);
}

// The input as alternating runs of kept and reduced axes (extent-1 axes dropped), each run one
// axis of the kernel's view: a reduction of any rank within the kernel's 6 unless it alternates
// more often than that.
lowering::Named merged_extents(const Node& n, const Shape& x) {
  const auto reduced = reduced_axes(n, static_cast<int64_t>(x.size()));
  std::vector<std::pair<int64_t, bool>> runs;
  for (size_t d = 0; d < x.size(); ++d) {
    if (x[d] == 1) continue;
    if (!runs.empty() && runs.back().second == reduced[d])
      runs.back().first *= x[d];
    else
      runs.emplace_back(x[d], reduced[d]);
  }
  if (runs.empty()) runs.emplace_back(1, true);
  if (runs.size() > 6)
    fail(n, "input shape " + shape_str(x) + " with attribute 'axes' = " + rules::ints_text(n.attr_ints("axes", {})) +
                " alternates kept and reduced axes " + std::to_string(runs.size()) +
                " times; the reduce kernels take 6");
  lowering::Named e = {{"rank", static_cast<int64_t>(runs.size())}};
  for (size_t k = 0; k < runs.size(); ++k) {
    e["d" + std::to_string(k)] = runs[k].first;
    e["r" + std::to_string(k)] = runs[k].second ? 1 : 0;
  }
  return e;
}

NodeLowering lower_reduce(const Graph& g, const Node& n, const std::string& kernel) {
  const Value& x = g.input_of(n, 0);
  if (x.dtype != DType::Float32)
    fail(n, "input '" + x.name + "' is " + dtype_name(x.dtype) + "; the reduce kernels take float32");
  return lowering::call(
      lowering::named_call(n, kernel, merged_extents(n, x.shape), lowering::with_output({n.inputs[0]}, n)));
}

// A constant input reduced at import (shape arithmetic: ReduceProd of a Shape), in double.
Tensor fold_reduce(const Graph& g, const Node& n, const Tensor& x, Kind kind) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const auto reduced = reduced_axes(n, rank);
  const Shape& out_shape = g.value(n.outputs.at(0)).shape;
  const int64_t outputs = element_count(out_shape);
  const double inf = std::numeric_limits<double>::infinity();
  const double start = kind == Kind::Prod                             ? 1
                       : kind == Kind::Max || kind == Kind::LogSumExp ? -inf
                       : kind == Kind::Min                            ? inf
                                                                      : 0;
  std::vector<double> acc(static_cast<size_t>(outputs), start), peak(static_cast<size_t>(outputs), -inf);
  std::vector<int64_t> at(static_cast<size_t>(x.size()));
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (int64_t e = 0; e < x.size(); ++e) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d) o = reduced[d] ? o : o * x.shape[d] + idx[d];
    at[e] = o;
    peak[o] = std::max(peak[o], x.at(e));
    for (int64_t d = rank; d-- > 0;) {
      if (++idx[d] < x.shape[d]) break;
      idx[d] = 0;
    }
  }
  for (int64_t e = 0; e < x.size(); ++e) {
    const double v = x.at(e);
    double& a = acc[at[e]];
    switch (kind) {
      case Kind::Max: a = std::max(a, v); break;
      case Kind::Min: a = std::min(a, v); break;
      case Kind::Prod: a *= v; break;
      case Kind::L1: a += std::abs(v); break;
      case Kind::L2:
      case Kind::SumSquare: a += v * v; break;
      case Kind::LogSumExp: a = (a == -inf ? 0 : a) + std::exp(v - peak[at[e]]); break;
      default: a += v;
    }
  }
  const double count = static_cast<double>(x.size()) / static_cast<double>(std::max<int64_t>(outputs, 1));
  Tensor out;
  out.dtype = x.dtype;
  out.shape = out_shape;
  for (int64_t o = 0; o < outputs; ++o) {
    double a = acc[o];
    if (kind == Kind::Mean) a /= count;
    if (kind == Kind::L2) a = std::sqrt(a);
    if (kind == Kind::LogSum) a = std::log(a);
    if (kind == Kind::LogSumExp) a = std::log(a) + peak[o];
    out.append_value(a);
  }
  return out;
}

OpDef reduce_def(const ReduceOp& r) {
  OpDef d;
  d.name = r.onnx;
  d.versions = r.versions;
  d.attributes = {"axes", "keepdims", "noop_with_empty_axes"};
  const int since = r.axes_input_since;
  d.normalize = [since](Graph& g, Node n, const OpVersion& v) { return normalize_reduce(g, std::move(n), v, since); };
  d.infer = infer_reduce;
  const Kind kind = r.kind;
  d.fold = [kind](const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs) {
    return fold_reduce(g, n, *inputs.at(0), kind);
  };
  const std::string kernel = r.kernel;
  d.lower = [kernel](const Graph& g, const Node& n) { return lower_reduce(g, n, kernel); };
  return d;
}

}  // namespace

void add_reduce_ops(std::vector<OpDef>& ops) {
  for (const ReduceOp& r : reduce_ops()) ops.push_back(reduce_def(r));
}

}  // namespace tf::graph

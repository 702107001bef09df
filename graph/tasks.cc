#include "graph/tasks.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/error.h"
#include "compiler/ops/registry.h"
#include "graph/kernel_alternatives.h"
#include "graph/kernel_calls.h"

namespace tf::graph {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<size_t> constant_inputs(const Graph& g, const Node& n) {
  std::vector<size_t> at;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (g.constant(n.inputs[i])) at.push_back(i);
  }
  return at;
}

// ConvTranspose runs as conv2d_transpose[_bias], and conv3d* and attention* nodes as their kernels, each with a
// config space of its own: the workload is the one the lowering calls.
std::optional<NodeKernel> lowered_kernel(const Graph& g, const Node& n) {
  const NodeLowering l = lower_node(g, n);
  if (!l.call) return std::nullopt;
  NodeKernel k;
  k.workload = l.call->workload();
  k.shape_text = l.call->op->shape_text(k.workload.shape);
  k.constant_inputs = constant_inputs(g, n);
  return k;
}

}  // namespace

ops::Conv2dShape conv2d_shape(const Graph& g, const Node& n) {
  const Shape& x = g.input_of(n, 0).shape;
  const Shape& w = g.input_of(n, 1).shape;
  const auto strides = n.attr_ints("strides", {1, 1}), dil = n.attr_ints("dilations", {1, 1}),
             pads = n.attr_ints("pads", {0, 0, 0, 0});
  ops::Conv2dShape s;
  s.n = x[0], s.c = x[1], s.h = x[2], s.w = x[3];
  s.k = w[0], s.r = w[2], s.s = w[3];
  s.stride = strides[0];
  s.dilation = dil[0];
  s.groups = n.attr_int("group", 1);
  s.pad_top = pads[0], s.pad_left = pads[1], s.pad_bottom = pads[2], s.pad_right = pads[3];
  return s;
}

namespace {

// {M, N, K} and the calls: a 2-D weight multiplies every row of A (leading extents flattened into
// M); a batched B (attribute batch) is one matrix product per leading index.
std::pair<std::vector<int64_t>, int64_t> dense_workload(const Graph& g, const Node& n) {
  const Shape& a = g.input_of(n, 0).shape;
  const Shape& b = g.input_of(n, 1).shape;
  if (b.size() == 2) return {{element_count(Shape(a.begin(), a.end() - 1)), b[1], a.back()}, 1};
  return {{a[a.size() - 2], b.back(), a.back()}, n.attr_int("batch", 1)};
}

// The conversions between the blocks of the tasks' convs, once each, count 0.
void add_layout_transforms(std::vector<Task>* tasks) {
  std::set<std::string> seen;
  for (const Task& t : *tasks) seen.insert(t.workload.str());
  const size_t kernels = tasks->size();
  for (size_t i = 0; i < kernels; ++i) {
    for (const ops::Workload& w : layout_transform_workloads((*tasks)[i].workload)) {
      if (!seen.insert(w.str()).second) continue;
      Task t;
      t.workload = w;
      t.shape_text = ops::find_operator(w.op).shape_text(w.shape);
      tasks->push_back(std::move(t));
    }
  }
}

}  // namespace

std::optional<NodeKernel> node_kernel(const Graph& g, const Node& n) {
  if (n.op == "ConvTranspose" || starts_with(n.op, "conv3d") || starts_with(n.op, "attention"))
    return lowered_kernel(g, n);
  const bool conv = starts_with(n.op, "conv2d") || starts_with(n.op, "depthwise") ||
                    starts_with(n.op, "qconv2d_nchwc") || starts_with(n.op, "qdepthwise_nchwc"),
             dense = starts_with(n.op, "dense") || starts_with(n.op, "qdense_packed");
  if (!conv && !dense) return std::nullopt;
  NodeKernel k;
  k.workload.op = n.op;
  if (n.has("workload_shape")) {
    k.workload.shape = n.attr_ints("workload_shape", {});  // set by plan_layouts on the blocked twins
  } else if (conv) {
    k.workload.shape = conv2d_shape(g, n).to_vector();
  } else {
    std::tie(k.workload.shape, k.calls) = dense_workload(g, n);
  }
  try {
    ops::check_workload(k.workload);
  } catch (const CompileError& e) {
    throw CompileError(n.describe() + ": not a valid workload: " + e.what());
  }
  k.shape_text = ops::find_operator(n.op).shape_text(k.workload.shape);
  k.constant_inputs = constant_inputs(g, n);
  return k;
}

int64_t kernel_flops(const Graph& planned) {
  int64_t flops = 0;
  for (const Node& n : planned.nodes) {
    if (const auto k = node_kernel(planned, n))
      flops += ops::find_operator(k->workload.op).flops(k->workload.shape) * k->calls;
  }
  return flops;
}

std::vector<Task> tunable_tasks(const Graph& g, bool block_alternatives) {
  std::map<std::string, Task> by_key;
  std::map<std::string, int> groups;  // the direct workload's key -> its group
  std::vector<std::string> order;
  double total = 0;
  for (const Node& n : g.nodes) {
    const auto k = node_kernel(g, n);
    if (!k) continue;
    const auto alternatives =
        block_alternatives ? kernel_alternatives_with_blocks(k->workload) : kernel_alternatives(k->workload);
    int group = -1;
    if (alternatives.size() > 1)
      group = groups.try_emplace(alternatives[0].str(), static_cast<int>(groups.size())).first->second;
    for (const ops::Workload& w : alternatives) {
      const std::string key = w.str();
      auto [it, fresh] = by_key.try_emplace(key);
      Task& t = it->second;
      const ops::Operator& op = ops::find_operator(w.op);
      if (fresh) {
        t.workload = w;
        t.shape_text = op.shape_text(w.shape);
        t.group = group;
        order.push_back(key);
      }
      t.count += k->calls;
      t.flops += op.flops(w.shape) * k->calls;
      t.nodes.push_back(n.name);
    }
    total += static_cast<double>(ops::find_operator(k->workload.op).flops(k->workload.shape) * k->calls);
  }
  std::vector<Task> tasks;
  for (const auto& key : order) {
    Task t = by_key.at(key);
    t.share = total > 0 ? static_cast<double>(t.flops) / total : 0;
    tasks.push_back(std::move(t));
  }
  std::stable_sort(tasks.begin(), tasks.end(), [](const Task& a, const Task& b) { return a.flops > b.flops; });
  if (block_alternatives) add_layout_transforms(&tasks);
  return tasks;
}

}  // namespace tf::graph

// Sequences whose structure is known when the model is built: SequenceEmpty, SequenceConstruct,
// SequenceInsert, SequenceErase, SequenceAt, SequenceLength, ConcatFromSequence, SplitToSequence.
// Shapes are static, so positions and split sizes are constants and a sequence is a list of
// tensor values the importer tracks (Graph::sequences). Each op rewrites into tensor ops
// (Identity, Concat, Unsqueeze, Split's slices, Squeeze) or a constant: no sequence reaches a
// kernel. A sequence as a model input or output, or a position computed at run time, is refused.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using rules::fail;

const std::vector<std::string>& elements(const Graph& g, const Node& n, size_t i) {
  if (!g.input_present(n, i)) fail(n, "input " + std::to_string(i) + " (the sequence) is missing");
  const auto it = g.sequences.find(n.inputs[i]);
  if (it == g.sequences.end()) fail(n, "input '" + n.inputs[i] + "' is not a sequence");
  return it->second;
}

// A position input (int32 or int64 scalar) or `fallback` when absent, in [-length, length - 1]
// (to [-length, length] where SequenceInsert may append); negative counts back from the end.
size_t position(const Graph& g, const Node& n, size_t i, int64_t fallback, int64_t length, bool may_append = false) {
  int64_t p = fallback;
  if (g.input_present(n, i)) {
    const Tensor* t = g.constant(n.inputs[i]);
    if (!t)
      fail(n,
           "input '" + n.inputs[i] + "' (position) must be a constant: sequences are resolved when the model is built");
    if (t->is_float() || t->dtype == DType::Bool || t->size() != 1) {
      fail(n, "input '" + n.inputs[i] + "' (position) must be one int32 or int64 value");
    }
    p = t->i64.at(0);
  }
  const int64_t last = may_append ? length : length - 1;
  if (p < -length || p > last) {
    fail(n, "position " + std::to_string(p) + " is outside [" + std::to_string(-length) + ", " + std::to_string(last) +
                "]");
  }
  return static_cast<size_t>(p < 0 ? p + length : p);
}

void define(Graph& g, const Node& n, std::vector<std::string> items) {
  DType first = DType::Float32;
  for (size_t i = 0; i < items.size(); ++i) {
    const DType t = g.value(items[i]).dtype;
    if (i == 0)
      first = t;
    else if (t != first)
      fail(n, "element '" + items[i] + "' is " + dtype_name(t) + " but the sequence holds " + dtype_name(first));
  }
  g.sequences[n.outputs.at(0)] = std::move(items);
}

Node identity(const Node& n, const std::string& from, const std::string& to) {
  Node id;
  id.op = "Identity";
  id.name = n.name;
  id.inputs = {from};
  id.outputs = {to};
  return id;
}

std::vector<Node> sequence_construct(Graph& g, const Node& n, const OpVersion&) {
  define(g, n, n.inputs);
  return {};
}

std::vector<Node> sequence_empty(Graph& g, const Node& n, const OpVersion&) {
  define(g, n, {});
  return {};
}

std::vector<Node> sequence_insert(Graph& g, Node n, const OpVersion&) {
  std::vector<std::string> items = elements(g, n, 0);
  if (!g.input_present(n, 1)) fail(n, "input 1 (the tensor to insert) is missing");
  const int64_t size = static_cast<int64_t>(items.size());
  const size_t at = position(g, n, 2, size, size, true);
  items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), n.inputs[1]);
  define(g, n, std::move(items));
  return {};
}

std::vector<Node> sequence_erase(Graph& g, const Node& n, const OpVersion&) {
  std::vector<std::string> items = elements(g, n, 0);
  if (items.empty()) fail(n, "the sequence is empty: nothing to erase");
  items.erase(items.begin() + static_cast<std::ptrdiff_t>(position(g, n, 1, -1, static_cast<int64_t>(items.size()))));
  define(g, n, std::move(items));
  return {};
}

std::vector<Node> sequence_at(Graph& g, Node n, const OpVersion&) {
  const std::vector<std::string>& items = elements(g, n, 0);
  if (!g.input_present(n, 1)) fail(n, "input 1 (position) is missing");
  const std::string& item = items.at(position(g, n, 1, 0, static_cast<int64_t>(items.size())));
  const Value& v = g.value(item);
  g.set_value(Value{n.outputs.at(0), v.dtype, v.shape, nullptr});
  return {identity(n, item, n.outputs.at(0))};
}

std::vector<Node> sequence_length(Graph& g, Node n, const OpVersion&) {
  const auto count = static_cast<int64_t>(elements(g, n, 0).size());
  Value v{n.outputs.at(0), DType::Int64, {}, nullptr};
  v.data = std::make_shared<const Tensor>(Tensor::ints({}, {count}));
  g.set_value(std::move(v));
  return {};
}

// Concat along `axis`, or with new_axis, a stack: each element unsqueezed at the axis first.
std::vector<Node> concat_from_sequence(Graph& g, Node n, const OpVersion&) {
  const std::vector<std::string>& items = elements(g, n, 0);
  if (items.empty()) fail(n, "the sequence is empty: nothing to concatenate");
  if (!n.has("axis")) fail(n, "attribute 'axis' is required");
  const bool stack = n.attr_int("new_axis", 0) != 0;
  const auto rank = static_cast<int64_t>(g.value(items[0]).shape.size()) + (stack ? 1 : 0);
  int64_t axis = n.attr_int("axis", 0);
  if (axis < -rank || axis >= rank)
    fail(n, "attribute 'axis' = " + std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", " +
                std::to_string(rank - 1) + "]");
  if (axis < 0) axis += rank;
  std::vector<Node> out;
  Node concat;
  concat.op = "Concat";
  concat.name = n.name;
  concat.attrs["axis"] = axis;
  concat.outputs = {n.outputs.at(0)};
  for (const auto& item : items) {
    if (!stack) {
      concat.inputs.push_back(item);
      continue;
    }
    Node u = rules::helper_node(g, "Unsqueeze", {item}, n.name + "_" + item + "_unsqueezed");
    u.attrs["axes"] = std::vector<int64_t>{axis};
    concat.inputs.push_back(u.outputs[0]);
    out.push_back(std::move(u));
  }
  g.set_value(Value{n.outputs.at(0), g.value(items[0]).dtype, {}, nullptr});
  out.push_back(std::move(concat));
  return out;
}

// Split's sizes along the axis: the split input (a scalar: chunks of that size, the last smaller;
// a list: the sizes), or chunks of 1 that keepdims=0 squeezes away.
std::vector<int64_t> split_to_sequence_sizes(const Graph& g, const Node& n, int64_t extent) {
  if (!g.input_present(n, 1)) return std::vector<int64_t>(static_cast<size_t>(extent), 1);
  const Tensor* t = g.constant(n.inputs[1]);
  if (!t)
    fail(n, "input '" + n.inputs[1] + "' (split) must be a constant: sequences are resolved when the model is built");
  if (t->is_float() || t->dtype == DType::Bool) fail(n, "input '" + n.inputs[1] + "' (split) must be int32 or int64");
  if (t->shape.size() == 1) return t->i64;
  if (!t->shape.empty()) fail(n, "input '" + n.inputs[1] + "' (split) must be a scalar or a list");
  const int64_t chunk = t->i64.at(0);
  if (chunk <= 0) fail(n, "split = " + std::to_string(chunk) + " must be positive");
  std::vector<int64_t> sizes;
  for (int64_t left = extent; left > 0; left -= chunk) sizes.push_back(std::min(left, chunk));
  return sizes;
}

std::vector<Node> split_to_sequence(Graph& g, Node n, const OpVersion& v) {
  const Value& x = rules::in(g, n, 0);
  const auto rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = n.attr_int("axis", 0);
  if (axis < -rank || axis >= rank)
    fail(n, "attribute 'axis' = " + std::to_string(axis) + " is outside [" + std::to_string(-rank) + ", " +
                std::to_string(rank - 1) + "]");
  if (axis < 0) axis += rank;
  const std::vector<int64_t> sizes = split_to_sequence_sizes(g, n, x.shape[axis]);
  const bool squeeze = !g.input_present(n, 1) && n.attr_int("keepdims", 1) == 0;
  if (sizes.empty()) fail(n, "input '" + n.inputs[0] + "' has no elements along axis " + std::to_string(axis));

  // Split as version 11 reads it (sizes as an attribute) does the checking and slicing.
  Node split;
  split.op = "Split";
  split.name = n.name;
  split.inputs = {n.inputs[0]};
  split.attrs["axis"] = axis;
  split.attrs["split"] = sizes;
  std::vector<std::string> pieces;
  for (size_t p = 0; p < sizes.size(); ++p) pieces.push_back(g.unique_name(n.outputs.at(0) + "_" + std::to_string(p)));
  for (const auto& piece : pieces) g.set_value(Value{piece, x.dtype, {}, nullptr});  // unique_name then sees it taken
  split.outputs = pieces;
  std::vector<Node> out = find_op_def("Split")->normalize(g, std::move(split), OpVersion{v.opset, 11});
  if (squeeze) {
    for (auto& piece : pieces) {
      Node s = rules::helper_node(g, "Squeeze", {piece}, piece + "_squeezed");
      s.attrs["axes"] = std::vector<int64_t>{axis};
      piece = s.outputs[0];
      out.push_back(std::move(s));
    }
  }
  g.sequences[n.outputs.at(0)] = pieces;
  return out;
}

OpDef sequence_op(const std::string& name, std::vector<std::string> attributes,
                  std::function<std::vector<Node>(Graph&, Node, const OpVersion&)> normalize) {
  OpDef d;
  d.name = name;
  d.versions = {11};
  d.attributes = std::move(attributes);
  d.normalize = std::move(normalize);
  return d;
}

}  // namespace

void add_sequence_ops(std::vector<OpDef>& ops) {
  ops.push_back(sequence_op("SequenceEmpty", {"dtype"}, sequence_empty));
  ops.push_back(sequence_op("SequenceConstruct", {}, sequence_construct));
  ops.push_back(sequence_op("SequenceInsert", {}, sequence_insert));
  ops.push_back(sequence_op("SequenceErase", {}, sequence_erase));
  ops.push_back(sequence_op("SequenceAt", {}, sequence_at));
  ops.push_back(sequence_op("SequenceLength", {}, sequence_length));
  ops.push_back(sequence_op("ConcatFromSequence", {"axis", "new_axis"}, concat_from_sequence));
  ops.push_back(sequence_op("SplitToSequence", {"axis", "keepdims"}, split_to_sequence));
}

}  // namespace tf::graph

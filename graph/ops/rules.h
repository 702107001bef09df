// What the op families share: errors naming the node, reading inputs and writing output shapes,
// attributes that became inputs, helper nodes and constants a normalization adds.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace tf::graph {
struct OpDef;  // graph/ops/registry.h
}

namespace tf::graph::rules {

[[noreturn]] void fail(const Node& n, const std::string& why);
std::string ints_text(const std::vector<int64_t>& v);  // "[1,2]"

// Input i, which must be present.
const Value& in(const Graph& g, const Node& n, size_t i);
// Sets output i's dtype and shape (an absent output is skipped); a negative extent is an error.
void set_out(Graph& g, const Node& n, size_t i, DType t, Shape s);
void same_as_input(Graph& g, const Node& n);
// Refuses, naming the input, a present input of another dtype than float32: `kernel` computes in
// float32 only (a float64 or integer model value is not narrowed to it).
void require_float32(const Graph& g, const Node& n, const std::string& kernel);
void require_rank(const Node& n, const Value& v, size_t rank, const std::string& what);

// An int64 input read as a list (axes, a shape): it must be a constant, since shapes are static.
std::vector<int64_t> constant_ints(const Graph& g, const Node& n, size_t i, const std::string& what);
// An attribute that later versions take as input i: read from the input when present (which is
// then dropped), else from the attribute; written to the attribute either way when known.
void input_to_attribute(Graph& g, Node& n, size_t i, const std::string& attr);
// A float32 attribute that later versions take as input i: becomes a scalar constant input.
void attribute_to_input(Graph& g, Node& n, const std::string& attr, size_t i);

// A new constant value named after `stem`; returns its name.
std::string add_constant(Graph& g, const std::string& stem, Tensor t);
// A new node of `op` reading `inputs`, writing a new value named after `stem`.
Node helper_node(Graph& g, const std::string& op, std::vector<std::string> inputs, const std::string& stem);

// Attributes only the op's versions before `until` have: accepted there, refused by name from it on.
void old_attributes(OpDef& d, const std::vector<std::string>& attrs, int until);
// consumed_inputs, an in-place memory hint of versions before 6 that changes no value: accepted
// there and dropped by normalize.
void ignore_consumed_inputs(OpDef& d);
// `value` seen with shape `to` (as many elements): a reshaped copy when it is a constant, else the
// output of a Reshape helper node appended to `nodes`.
std::string reshape_to(Graph& g, const std::string& value, const Shape& to, std::vector<Node>& nodes);

// The helper nodes of a normalization, each reading values the ones before it wrote, named after
// the node they replace; `output` makes a step write one of that node's outputs.
class Steps {
 public:
  Steps(Graph& g, const Node& n) : g_(g), n_(n) {}

  std::string add(const std::string& op, std::vector<std::string> inputs, const std::string& stem,
                  std::map<std::string, Attribute> attrs = {}, const std::string& output = "") {
    Node h = helper_node(g_, op, std::move(inputs), n_.name + "_" + stem);
    if (!output.empty()) h.outputs = {output};
    h.attrs = std::move(attrs);
    nodes_.push_back(h);
    return h.outputs[0];
  }
  std::string constant(const std::string& stem, Tensor t) {
    return add_constant(g_, n_.name + "_" + stem, std::move(t));
  }
  std::string scalar(const std::string& stem, double v, DType t) {
    return t == DType::Float32 ? constant(stem, Tensor::floats({}, {static_cast<float>(v)}))
                               : constant(stem, Tensor::ints({}, {static_cast<int64_t>(v)}, t));
  }
  std::string shape(const std::string& stem, const Shape& s) {
    return constant(stem, Tensor::ints({static_cast<int64_t>(s.size())}, s));
  }
  std::vector<Node> take() { return std::move(nodes_); }

 private:
  Graph& g_;
  const Node& n_;
  std::vector<Node> nodes_;
};

// Refusals of a check: an output beyond the first `count` that the model reads.
std::optional<std::string> extra_output(const Node& n, size_t count, const std::string& what);

}  // namespace tf::graph::rules

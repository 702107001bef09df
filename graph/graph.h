// The model-level graph IR: a dataflow graph of operator nodes over named values with static
// shapes. ONNX is imported into it (onnx_import.h), passes rewrite it (passes/passes.h), and a
// builder walks the planned graph node by node (tasks.h: each node's kernel workload).
//
// Values are named; a node refers to its inputs and outputs by name ("" is an absent optional
// input). Constant values carry their data, shared between copies of a graph, so a pass that
// returns a new graph does not copy the weights it leaves alone.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "support/dtype.h"

namespace tf::graph {

// The element types the compiled model and its executor share (support/dtype.h).
using DType = tf::DType;
using tf::dtype_name;

using Shape = std::vector<int64_t>;
int64_t element_count(const Shape& s);
std::string shape_str(const Shape& s);  // "[1,3,224,224]"

// Constant data in row-major order: `f32` for Float32, `f64` for Float64 (never rounded through
// float), `i64` for the integer types and Bool (each element's value: an Int32 in range, a Bool 0
// or 1); the others stay empty.
struct Tensor {
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<float> f32;
  std::vector<int64_t> i64;
  std::vector<double> f64;

  static Tensor floats(Shape shape, std::vector<float> data);
  static Tensor doubles(Shape shape, std::vector<double> data);
  // An integer type or Bool; CompileError for a float type or a value out of the type's range.
  static Tensor ints(Shape shape, std::vector<int64_t> data, DType dtype = DType::Int64);
  int64_t size() const { return element_count(shape); }
  // Element i as double whatever the dtype (for shape arithmetic and the evaluator).
  double at(int64_t i) const {
    return dtype == DType::Float32 ? f32[i] : dtype == DType::Float64 ? f64[i] : static_cast<double>(i64[i]);
  }
  // How many elements the dtype's storage holds (the shape's count in a well-formed tensor).
  size_t held() const {
    return dtype == DType::Float32 ? f32.size() : dtype == DType::Float64 ? f64.size() : i64.size();
  }
  bool is_float() const { return dtype == DType::Float32 || dtype == DType::Float64; }
  // Element-by-element building in whatever storage the dtype uses (folds that move elements):
  // `count` elements of `src` (of this dtype) from `from` on; v stored in this dtype (rounded to
  // float32, truncated to an integer, a bool v != 0); the storage sized to n elements.
  void append(const Tensor& src, int64_t from, int64_t count = 1);
  void append_value(double v);
  void resize_elements(int64_t n);
  void set(int64_t e, const Tensor& src, int64_t from);
};

struct Value {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  std::shared_ptr<const Tensor> data;  // set for constants (weights, folded shapes)
  bool is_constant() const { return data != nullptr; }
};

using Attribute = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>>;

class Graph;

struct Node {
  std::string name;  // unique in the graph; from ONNX, or made up by the pass that created the node
  std::string op;    // an ONNX op type ("Conv"), or a fused kernel from compiler/ops ("conv2d_bias_relu")
  std::vector<std::string> inputs;   // value names; "" for an absent optional input
  std::vector<std::string> outputs;  // value names
  std::map<std::string, Attribute> attrs;
  // A fused elementwise node (op kFusedElementwise) computes its body: a graph whose inputs are this
  // node's inputs, in order, and whose one output is this node's output.
  std::shared_ptr<const Graph> body;

  bool has(const std::string& attr) const { return attrs.count(attr) != 0; }
  // The attribute, or the fallback when absent; a present attribute of another kind is a
  // CompileError naming the node and the attribute.
  int64_t attr_int(const std::string& attr, int64_t fallback) const;
  double attr_float(const std::string& attr, double fallback) const;
  std::string attr_string(const std::string& attr, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& attr, const std::vector<int64_t>& fallback) const;
  std::string describe() const;  // "node 'conv1' (Conv)": the prefix every error about a node uses
};

inline constexpr const char* kFusedElementwise = "fused_elementwise";

class Graph {
 public:
  std::vector<std::string> inputs;   // runtime inputs (no constants), in order
  std::vector<std::string> outputs;  // in order
  std::vector<Node> nodes;           // in topological order (see sort_topologically)
  // While importing only: each sequence value's elements, known when the model is built
  // (graph/ops/sequence.cc). No sequence outlives the import.
  std::map<std::string, std::vector<std::string>> sequences;

  // Adds or replaces a value.
  Value& set_value(Value v);
  // Adds or replaces a constant value holding `t` (its dtype and shape).
  Value& set_constant(const std::string& name, Tensor t);
  bool has_value(const std::string& name) const { return values_.count(name) != 0; }
  const Value& value(const std::string& name) const;  // CompileError when unknown
  Value& value(const std::string& name);
  const std::map<std::string, Value>& values() const { return values_; }
  // CompileError naming the node when it has no input (output) i: a model may leave any out.
  const Value& input_of(const Node& n, size_t i) const;
  const Value& output_of(const Node& n, size_t i = 0) const;
  bool input_present(const Node& n, size_t i) const { return i < n.inputs.size() && !n.inputs[i].empty(); }
  const Tensor* constant(const std::string& name) const;  // nullptr unless a constant
  // The value of a one-element constant; nullopt for anything else (and for "").
  std::optional<double> scalar_constant(const std::string& name) const;

  // How many node inputs read the value, plus one if it is a graph output.
  int use_count(const std::string& value) const;
  bool is_output(const std::string& value) const;
  // Indices of the nodes reading the value.
  std::vector<size_t> consumers(const std::string& value) const;
  // The index of the node producing the value, or -1 (an input or a constant).
  int producer(const std::string& value) const;

  // A fresh value or node name starting with `stem`.
  std::string unique_name(const std::string& stem) const;
  // Orders nodes so every input is defined before it is read; throws CompileError naming the node
  // that reads an undefined value or sits on a cycle.
  void sort_topologically();
  // Drops values no node reads or writes and that are neither inputs nor outputs.
  void remove_unused_values();
  // Nodes whose outputs nothing reads (transitively), and then unused values.
  void remove_dead_nodes();
  // Every node reads defined values, outputs are produced once, shapes are known: a pass's
  // postcondition. Throws CompileError naming what is wrong.
  void check() const;

 private:
  std::map<std::string, Value> values_;
};

// Node counts by op, ordered by op name.
std::map<std::string, int> count_ops(const Graph& g);

}  // namespace tf::graph

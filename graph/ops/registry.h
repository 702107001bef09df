// One entry per operator the graph level knows: every ONNX op the importer takes, and the fused
// kernels the passes make (conv2d_*, dense_*, fused_elementwise, the blocked-layout nodes). An entry
// holds all of an op's knowledge, phase by phase, so adding an op is one entry in one family file
// (graph/ops/<family>.cc) and its test:
//
//   versions    the ONNX since-versions it implements (an op's version at a model's opset comes
//               from ONNX's schema registry, graph/ops/registry.cc); empty for a fused kernel
//   attributes  the attributes it reads, in any version it implements; others are refused
//   check       refusals that need no shapes (an attribute value, an output it cannot produce)
//   normalize   every version into one canonical node (attributes that became inputs read from
//               either place, defaults written out, old axis semantics rewritten), possibly with
//               helper nodes before or after it; the phases after it see one version only
//   infer       the output dtypes and shapes
//   fold        the output from constant inputs (optional: shape arithmetic, small weights)
//   lower       the kernel call that runs it, or an alias of its input
//   expression  its elementwise expression (elementwise ops): how a fused chain computes it
//   fusion      what a conv2d/dense epilogue or a fused_elementwise chain may absorb it as
//
// Entries are tables built by one explicit call per family (no static initialisation order).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ops/elementwise_expr.h"
#include "graph/graph.h"
#include "graph/kernel_calls.h"

namespace tf::graph {

// The version of an op a node is read as: the model's opset and the op's since-version at it.
struct OpVersion {
  int64_t opset = 0;
  int since = 0;
};

// What fusing passes may do with a node of the op.
enum class Epilogue : uint8_t { None, Relu, Clip, Add, BatchNorm };  // absorbed into a producer as
enum class Anchor : uint8_t { None, Conv, Dense };                   // the producer of epilogues
struct FusionRole {
  bool elementwise = false;  // a fused_elementwise chain may absorb it
  Epilogue epilogue = Epilogue::None;
  Anchor anchor = Anchor::None;
};

// How an elementwise op's expression reads its inputs: a scalar constant of the outer graph, or a
// kernel argument numbered as it is first met.
class ElementwiseArgs {
 public:
  virtual ~ElementwiseArgs() = default;
  virtual ops::ElementwiseExprPtr value(const std::string& name) = 0;
  virtual std::optional<double> scalar_constant(const std::string& name) const = 0;
};

struct OpDef {
  std::string name;
  std::vector<int> versions;
  std::vector<std::string> attributes;
  std::function<std::optional<std::string>(const Node&, const OpVersion&)> check;
  // The nodes that replace `n`, in order (usually `n` itself, canonical); may add values to g.
  std::function<std::vector<Node>(Graph& g, Node n, const OpVersion&)> normalize;
  std::function<void(Graph& g, const Node& n)> infer;
  // inputs[i] is null for an absent optional input. With fold_reads_shapes_only, fold runs even
  // when the inputs are not constants (Shape).
  std::function<Tensor(const Graph& g, const Node& n, const std::vector<const Tensor*>& inputs)> fold;
  bool fold_reads_shapes_only = false;
  // normalize writes other ONNX ops (QLinearConv: DequantizeLinear, Conv, QuantizeLinear), which
  // import then normalizes, checks nothing more of, and infers one by one like the model's own.
  bool expands = false;
  std::function<NodeLowering(const Graph& g, const Node& n)> lower;
  std::function<ops::ElementwiseExprPtr(ElementwiseArgs& args, const Graph& scope, const Node& n)> expression;
  FusionRole fusion;
};

// The entry of an op by name, any version (what the phases after import use); nullptr if none.
const OpDef* find_op_def(std::string_view name);
// What the entry of `op` lets a fusing pass do with its nodes; nothing for an op without one.
FusionRole fusion_role(std::string_view op);
// The entry of `op` as a model of `opset` means it: nullptr and `why` set ("op X version V (opset N)
// is not supported (implemented: ...)", "op X is not supported") when it cannot be imported.
const OpDef* find_op_def(std::string_view op, int64_t opset, OpVersion* version, std::string* why);
// Whether the entry implements the version of its op that `opset` means; `why` names op, version,
// opset and the versions implemented when not.
bool implements(const OpDef& def, int64_t opset, OpVersion* version, std::string* why);
// The op's since-version at the opset per ONNX (0: no such op at that opset). From libonnx's schema
// registry, and for opsets beyond the one it knows, from the versions ONNX added since.
int onnx_since_version(std::string_view op, int64_t opset);
// The highest default-domain opset libonnx's schema registry knows.
int64_t onnx_schema_max_opset();
// Every entry, ordered by name.
std::vector<const OpDef*> all_op_defs();
// An ONNX TensorProto data type's name ("FLOAT16"), for refusals.
std::string onnx_dtype_name(int64_t elem_type);

// The families, each adding its entries (graph/ops/<family>.cc).
void add_unary_ops(std::vector<OpDef>& ops);
void add_binary_ops(std::vector<OpDef>& ops);
void add_conv_ops(std::vector<OpDef>& ops);
void add_conv_transpose_ops(std::vector<OpDef>& ops);
void add_pool_ops(std::vector<OpDef>& ops);
void add_resize_ops(std::vector<OpDef>& ops);
void add_matmul_ops(std::vector<OpDef>& ops);
void add_normalization_ops(std::vector<OpDef>& ops);
void add_softmax_ops(std::vector<OpDef>& ops);
void add_reduce_ops(std::vector<OpDef>& ops);
void add_shape_ops(std::vector<OpDef>& ops);
void add_data_movement_ops(std::vector<OpDef>& ops);
void add_fused_ops(std::vector<OpDef>& ops);
void add_activation_ops(std::vector<OpDef>& ops);
void add_logic_ops(std::vector<OpDef>& ops);
void add_cast_ops(std::vector<OpDef>& ops);
void add_arg_extreme_ops(std::vector<OpDef>& ops);
void add_slice_ops(std::vector<OpDef>& ops);
void add_pad_ops(std::vector<OpDef>& ops);
void add_cast_like_ops(std::vector<OpDef>& ops);
void add_depth_space_ops(std::vector<OpDef>& ops);
void add_sequence_ops(std::vector<OpDef>& ops);
void add_einsum_ops(std::vector<OpDef>& ops);
void add_loss_ops(std::vector<OpDef>& ops);
void add_trilu_ops(std::vector<OpDef>& ops);
void add_one_hot_ops(std::vector<OpDef>& ops);
void add_window_function_ops(std::vector<OpDef>& ops);
void add_quantize_ops(std::vector<OpDef>& ops);
void add_qlinear_ops(std::vector<OpDef>& ops);

}  // namespace tf::graph

#include "graph/ops/registry.h"

#include <algorithm>
#include <map>

// libonnx's schema registry: which since-version of an op a model's opset means. ONNX_ML and
// ONNX_NAMESPACE come from graph/CMakeLists.txt.
#include <onnx/defs/schema.h>

#include "compiler/error.h"

namespace tf::graph {
namespace {

// The versions ONNX gave the ops in opsets after the last one libonnx-dev 1.12 knows (17), from
// ONNX's Changelog.md: without them a model of opset 18 would read ReduceMean's axes as an
// attribute. An op new in those opsets is listed with its first version.
const std::map<std::string, std::vector<int>, std::less<>>& later_versions() {
  static const std::map<std::string, std::vector<int>, std::less<>> v = {
      {"AffineGrid", {20}},
      {"AveragePool", {19}},
      {"BitwiseAnd", {18}},
      {"BitwiseNot", {18}},
      {"BitwiseOr", {18}},
      {"BitwiseXor", {18}},
      {"Cast", {19, 21}},
      {"CastLike", {19, 21}},
      {"CenterCropPad", {18}},
      {"Col2Im", {18}},
      {"Constant", {19, 21}},
      {"ConstantOfShape", {20, 21}},
      {"DeformConv", {19}},
      {"DequantizeLinear", {19, 21}},
      {"DFT", {20}},
      {"Equal", {19}},
      {"Flatten", {21}},
      {"Gelu", {20}},
      {"GridSample", {20}},
      {"GroupNormalization", {18, 21}},
      {"Identity", {19, 21}},
      {"If", {19, 21}},
      {"ImageDecoder", {20}},
      {"IsInf", {20}},
      {"IsNaN", {20}},
      {"Loop", {19, 21}},
      {"LpPool", {18}},
      {"Mish", {18}},
      {"OptionalGetElement", {18}},
      {"OptionalHasElement", {18}},
      {"Pad", {18, 19, 21}},
      {"QLinearMatMul", {21}},
      {"QuantizeLinear", {19, 21}},
      {"ReduceL1", {18}},
      {"ReduceL2", {18}},
      {"ReduceLogSum", {18}},
      {"ReduceLogSumExp", {18}},
      {"ReduceMax", {18, 20}},
      {"ReduceMean", {18}},
      {"ReduceMin", {18, 20}},
      {"ReduceProd", {18}},
      {"ReduceSumSquare", {18}},
      {"RegexFullMatch", {20}},
      {"Reshape", {19, 21}},
      {"Resize", {18, 19}},
      {"Scan", {19, 21}},
      {"ScatterElements", {18}},
      {"ScatterND", {18}},
      {"Shape", {19, 21}},
      {"Size", {19, 21}},
      {"Split", {18}},
      {"Squeeze", {21}},
      {"StringConcat", {20}},
      {"StringSplit", {20}},
      {"Transpose", {21}},
      {"Unsqueeze", {21}},
  };
  return v;
}

struct Registry {
  std::vector<OpDef> defs;
  std::map<std::string, size_t, std::less<>> by_name;
};

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    for (auto add :
         {add_unary_ops,          add_binary_ops,          add_conv_ops,     add_pool_ops,   add_matmul_ops,
          add_normalization_ops,  add_softmax_ops,         add_reduce_ops,   add_shape_ops,  add_data_movement_ops,
          add_fused_ops,          add_activation_ops,      add_logic_ops,    add_cast_ops,   add_arg_extreme_ops,
          add_conv_transpose_ops, add_resize_ops,          add_slice_ops,    add_pad_ops,    add_cast_like_ops,
          add_depth_space_ops,    add_sequence_ops,        add_einsum_ops,   add_loss_ops,   add_trilu_ops,
          add_one_hot_ops,        add_window_function_ops, add_quantize_ops, add_qlinear_ops}) {
      add(reg.defs);
    }
    for (size_t i = 0; i < reg.defs.size(); ++i) {
      if (!reg.by_name.emplace(reg.defs[i].name, i).second)
        throw CompileError("op registry: two entries for " + reg.defs[i].name);
    }
    return reg;
  }();
  return r;
}

std::string versions_text(const std::vector<int>& versions) {
  std::string s;
  for (int v : versions) s += (s.empty() ? "" : ", ") + std::to_string(v);
  return s;
}

}  // namespace

int64_t onnx_schema_max_opset() {
  static const int64_t max =
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map().at(onnx::ONNX_DOMAIN).second;
  return max;
}

int onnx_since_version(std::string_view op, int64_t opset) {
  const std::string name(op);
  int since = 0;
  if (const auto* s = onnx::OpSchemaRegistry::Schema(name, static_cast<int>(std::min(opset, onnx_schema_max_opset())),
                                                     onnx::ONNX_DOMAIN)) {
    since = s->since_version();
  }
  if (auto it = later_versions().find(op); it != later_versions().end()) {
    for (int v : it->second) {
      if (v <= opset) since = std::max(since, v);
    }
  }
  return since;
}

const OpDef* find_op_def(std::string_view name) {
  const Registry& r = registry();
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : &r.defs[it->second];
}

FusionRole fusion_role(std::string_view op) {
  const OpDef* def = find_op_def(op);
  return def ? def->fusion : FusionRole{};
}

bool implements(const OpDef& def, int64_t opset, OpVersion* version, std::string* why) {
  const int since = onnx_since_version(def.name, opset);
  if (since == 0) {
    const int first = onnx_since_version(def.name, 1000);
    *why = "op " + def.name + " is not in opset " + std::to_string(opset) +
           (first > 0 ? " (ONNX has it since opset " + std::to_string(first) + ")" : "");
    return false;
  }
  if (std::find(def.versions.begin(), def.versions.end(), since) == def.versions.end()) {
    *why = "op " + def.name + " version " + std::to_string(since) + " (opset " + std::to_string(opset) +
           ") is not supported (implemented: " + versions_text(def.versions) + ")";
    return false;
  }
  *version = OpVersion{opset, since};
  return true;
}

const OpDef* find_op_def(std::string_view op, int64_t opset, OpVersion* version, std::string* why) {
  const OpDef* def = find_op_def(op);
  if (!def || def->versions.empty()) {
    *why = "op " + std::string(op) + " is not supported";
    return nullptr;
  }
  return implements(*def, opset, version, why) ? def : nullptr;
}

std::vector<const OpDef*> all_op_defs() {
  std::vector<const OpDef*> out;
  for (const auto& [name, i] : registry().by_name) out.push_back(&registry().defs[i]);
  return out;
}

std::string onnx_dtype_name(int64_t elem_type) {
  const auto t = static_cast<int>(elem_type);
  return onnx::TensorProto::DataType_IsValid(t)
             ? onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(t))
             : "unknown";
}

}  // namespace tf::graph

#include "compiler/ops/elementwise.h"

#include <algorithm>
#include <cmath>

#include "compiler/error.h"
#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {
namespace {

using ir::Expr;

// Counts the ops of the expression (flops per output element).
int64_t count_ops(const ElementwiseExpr& e) {
  if (e.kind == ElementwiseKind::Input || e.kind == ElementwiseKind::Constant) return 0;
  int64_t n = 1;
  for (const auto& a : e.args) n += count_ops(*a);
  return n;
}

void mark_inputs(const ElementwiseExpr& e, std::vector<bool>* read) {
  if (e.kind == ElementwiseKind::Input) (*read)[static_cast<size_t>(e.input)] = true;
  for (const auto& a : e.args) mark_inputs(*a, read);
}

// Parallel loops pay a wake-up of the thread pool (microseconds); below this many elements a
// default kernel stays on one thread.
constexpr int64_t kParallelElements = 1 << 15;

}  // namespace

ElementwiseOperator::ElementwiseOperator(ElementwiseExprPtr expr, int rank, std::vector<DType> input_dtypes,
                                         DType output_dtype)
    : expr_(std::move(expr)), rank_(rank), input_dtypes_(std::move(input_dtypes)), output_dtype_(output_dtype) {
  if (!expr_) throw CompileError("elementwise: null expression");
  if (rank_ < 1 || rank_ > 6)
    throw CompileError("elementwise " + expr_->text() + ": rank " + std::to_string(rank_) + " is outside [1, 6]");
  num_inputs_ = expr_->num_inputs();
  if (num_inputs_ == 0) throw CompileError("elementwise " + expr_->text() + ": reads no input");
  std::vector<bool> read(static_cast<size_t>(num_inputs_), false);
  mark_inputs(*expr_, &read);
  for (int i = 0; i < num_inputs_; ++i) {
    if (!read[i])
      throw CompileError("elementwise " + expr_->text() + ": reads x" + std::to_string(num_inputs_ - 1) + " but not x" +
                         std::to_string(i));
  }
  if (input_dtypes_.empty()) input_dtypes_.assign(static_cast<size_t>(num_inputs_), DType::Float32);
  if (static_cast<int>(input_dtypes_.size()) != num_inputs_) {
    throw CompileError("elementwise " + expr_->text() + ": " + std::to_string(input_dtypes_.size()) +
                       " input types for " + std::to_string(num_inputs_) + " inputs");
  }
}

std::string ElementwiseOperator::name() const {
  std::string types;
  bool all_float = output_dtype_ == DType::Float32;
  for (DType t : input_dtypes_) {
    types += (types.empty() ? "" : ",") + std::string(dtype_name(t));
    all_float = all_float && t == DType::Float32;
  }
  // The all-float32 name predates types: tuning records of those chains keep matching.
  if (all_float) return "elementwise[" + expr_->text() + "]";
  return "elementwise[" + expr_->text() + "|" + types + "->" + dtype_name(output_dtype_) + "]";
}

std::string ElementwiseOperator::description() const {
  return "out = " + expr_->text() + " over " + std::to_string(num_inputs_) + " broadcast input(s) of rank " +
         std::to_string(rank_);
}

std::vector<std::string> ElementwiseOperator::shape_names() const {
  std::vector<std::string> names;
  for (int i = 0; i < num_inputs_; ++i) {
    for (int d = 0; d < rank_; ++d) names.push_back("x" + std::to_string(i) + "_d" + std::to_string(d));
  }
  return names;
}

std::vector<std::vector<int64_t>> ElementwiseOperator::input_shapes(const std::vector<int64_t>& s) const {
  std::vector<std::vector<int64_t>> in;
  in.reserve(num_inputs_);
  for (int i = 0; i < num_inputs_; ++i) in.emplace_back(s.begin() + i * rank_, s.begin() + (i + 1) * rank_);
  return in;
}

std::vector<int64_t> ElementwiseOperator::output_shape(const std::vector<int64_t>& s) const {
  std::vector<int64_t> out(static_cast<size_t>(rank_), 1);
  for (const auto& in : input_shapes(s)) {
    for (int d = 0; d < rank_; ++d) out[d] = std::max(out[d], in[d]);
  }
  return out;
}

void ElementwiseOperator::check_shape(const std::vector<int64_t>& s) const {
  Operator::check_shape(s);
  const auto out = output_shape(s);
  const auto in = input_shapes(s);
  for (int i = 0; i < num_inputs_; ++i) {
    for (int d = 0; d < rank_; ++d) {
      if (in[i][d] != 1 && in[i][d] != out[d]) {
        throw CompileError("op '" + name() + "': extent x" + std::to_string(i) + "_d" + std::to_string(d) + " = " +
                           std::to_string(in[i][d]) + " neither matches the output's " + std::to_string(out[d]) +
                           " nor broadcasts (1)");
      }
    }
  }
}

std::string ElementwiseOperator::shape_text(const std::vector<int64_t>& s) const {
  std::string t;
  const auto in = input_shapes(s);
  for (int i = 0; i < num_inputs_; ++i) {
    t += (i ? "," : "") + std::string("x") + std::to_string(i) + "=";
    for (int d = 0; d < rank_; ++d) t += (d ? "x" : "") + std::to_string(in[i][d]);
  }
  return t;
}

int64_t ElementwiseOperator::flops(const std::vector<int64_t>& s) const {
  return element_count(output_shape(s)) * std::max<int64_t>(1, count_ops(*expr_));
}

space::ConfigSpace ElementwiseOperator::config_space(const std::vector<int64_t>& s, const codegen::Target& t) const {
  const int64_t lanes = std::max(1, t.float32_lanes());
  const auto out = output_shape(s);
  int64_t total = 1;
  for (int64_t d : out) total *= d;
  space::ConfigSpace cs;
  cs.add_knob("vectors", {Json(1), Json(2), Json(4)}, out.back() >= 2 * lanes ? 1 : 0,
              "vectors per iteration of the innermost (last-axis) loop");
  cs.add_knob("parallel", {Json(false), Json(true)}, total >= kParallelElements ? 1 : 0,
              "run the outer loops on the thread pool");
  return cs;
}

ir::Expr ElementwiseOperator::stored_result(const ir::Expr& value) const {
  const ir::DataType want = output_dtype_ == DType::Bool ? ir::DataType::boolean() : kernel_type(output_dtype_);
  if (value.type() != want) {
    throw CompileError("op '" + name() + "': the expression is " + value.type().str() + "; the output is " +
                       dtype_name(output_dtype_));
  }
  return output_dtype_ == DType::Bool ? ir::make_cast(kernel_type(DType::Bool), value) : value;
}

Scheduled ElementwiseOperator::schedule(const std::vector<int64_t>& s, const space::Config& cfg,
                                        const codegen::Target& t) const {
  const int64_t lanes = std::max(1, t.float32_lanes());
  const auto out_shape = output_shape(s);
  const auto in_shapes = input_shapes(s);
  Scheduled result;
  for (int i = 0; i < num_inputs_; ++i) {
    result.inputs.push_back(te::placeholder(in_shapes[i], kernel_type(input_dtypes_[i]), "x" + std::to_string(i)));
  }
  te::Tensor out = te::compute(
      out_shape,
      [&](const te::Indices& idx) {
        return stored_result(expr_->to_ir([&](int i) {
          std::vector<Expr> at;
          at.reserve(rank_);
          for (int d = 0; d < rank_; ++d) at.push_back(in_shapes[i][d] == 1 ? Expr(0) : idx[d]);
          const Expr x = result.inputs[i](at);
          return input_dtypes_[i] == DType::Bool ? ir::make_cast(ir::DataType::boolean(), x) : x;
        }));
      },
      "out");
  result.outputs = {out};
  result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
  // Arguments come as x0, x1, ...; the expression may read them in another order.
  result.schedule->set_input_order(result.inputs);
  schedule::Stage& st = (*result.schedule)[out];
  const int64_t width = lanes * cfg.get_int("vectors");
  auto [col_o, col_i] = st.split(st.axis(rank_ - 1), width);
  if (lanes > 1) {
    auto [v_o, v_i] = st.split(col_i, lanes);
    st.unroll(v_o);
    st.vectorize(v_i);
  }
  if (cfg.get_bool("parallel")) {
    ir::IterVar outer = rank_ > 1 ? st.axis(0) : col_o;
    for (int d = 1; d < rank_ - 1; ++d) outer = st.fuse(outer, st.axis(d));
    if (rank_ > 1) outer = st.fuse(outer, col_o);
    st.parallel(outer);
  }
  return result;
}

void ElementwiseOperator::reference(const std::vector<int64_t>& s, const std::vector<const float*>& in,
                                    std::vector<float>* output, std::vector<float>* tolerance) const {
  const auto out_shape = output_shape(s);
  const auto in_shapes = input_shapes(s);
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  output->assign(static_cast<size_t>(total), 0.0f);
  tolerance->assign(static_cast<size_t>(total), 0.0f);
  std::vector<int64_t> idx(static_cast<size_t>(rank_), 0);
  std::vector<double> values(static_cast<size_t>(num_inputs_));
  for (int64_t flat = 0; flat < total; ++flat) {
    for (int i = 0; i < num_inputs_; ++i) {
      int64_t at = 0;
      for (int d = 0; d < rank_; ++d) at = at * in_shapes[i][d] + (in_shapes[i][d] == 1 ? 0 : idx[d]);
      values[i] = in[i][at];
    }
    const auto r = expr_->evaluate(values);
    (*output)[flat] = static_cast<float>(r.value);
    // Denormal results: the kernel may round where double does not.
    (*tolerance)[flat] = static_cast<float>(std::min(r.error + 1e-37, 3e38));
    for (int d = rank_ - 1; d >= 0 && ++idx[d] == out_shape[d]; --d) idx[d] = 0;
  }
}

}  // namespace tf::ops

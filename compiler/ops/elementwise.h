// A fused chain of elementwise ops over inputs that broadcast (numpy rules) to one output: the
// expression varies by model, so it is an Operator instance built from the expression, not a
// registry entry; compiler::Task takes it directly.
//
//   auto e = ew_unary(Relu, ew_binary(Add, ew_input(0), ew_binary(Mul, ew_input(1), ew_constant(0.5))));
//   auto op = std::make_shared<ElementwiseOperator>(e, 2);   // rank 2
//   compiler::Task task(op, {4, 16, 1, 16}, target);          // x0: [4,16], x1: [1,16] -> [4,16]
//
// name() is "elementwise[relu(add(x0,mul(x1,0.5)))]". The shape lists every input's extents,
// input after input, each aligned to the output's rank (a lower-rank input is padded with leading
// 1s, as numpy aligns it, and passed to the kernel with that padded shape); an extent of 1 where
// the output's is larger broadcasts. Extents are named x0_d0, x0_d1, ..., x1_d0, ...
//
// Inputs and the output are float32 unless told otherwise: each input and the output may be
// float32, int64, int32 or bool (compiler/ops/tensor_dtype.h: a bool argument is uint8 0/1, read
// as an IR bool). The expression's own type must be the output's. A chain of another type names
// its types: "elementwise[cast(x0,float32)|int64->float32]"; an all-float32 one is named as before.
#pragma once

#include "compiler/ops/elementwise_expr.h"
#include "compiler/ops/operator.h"

namespace tf::ops {

class ElementwiseOperator : public Operator {
 public:
  // Throws tf::CompileError for a null expression, a rank outside [1, 6], no input, or input
  // types (empty: all float32) of another count than the expression's inputs.
  ElementwiseOperator(ElementwiseExprPtr expr, int rank, std::vector<DType> input_dtypes = {},
                      DType output_dtype = DType::Float32);

  const ElementwiseExpr& expr() const { return *expr_; }
  int rank() const { return rank_; }
  int num_inputs() const { return num_inputs_; }
  const std::vector<DType>& input_dtypes() const { return input_dtypes_; }
  DType output_dtype() const { return output_dtype_; }

  std::string name() const override;
  std::string description() const override;
  std::vector<std::string> shape_names() const override;
  void check_shape(const std::vector<int64_t>& shape) const override;
  std::string shape_text(const std::vector<int64_t>& shape) const override;
  int64_t flops(const std::vector<int64_t>& shape) const override;
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& shape) const override;
  std::vector<int64_t> output_shape(const std::vector<int64_t>& shape) const override;
  space::ConfigSpace config_space(const std::vector<int64_t>& shape, const codegen::Target& t) const override;
  Scheduled schedule(const std::vector<int64_t>& shape, const space::Config& cfg,
                     const codegen::Target& t) const override;
  void reference(const std::vector<int64_t>& shape, const std::vector<const float*>& inputs, std::vector<float>* output,
                 std::vector<float>* tolerance) const override;

 private:
  // The expression's value as the output stores it (a bool as uint8 0/1); CompileError when its
  // type is not the output's.
  ir::Expr stored_result(const ir::Expr& value) const;

  ElementwiseExprPtr expr_;
  int rank_;
  int num_inputs_;
  std::vector<DType> input_dtypes_;
  DType output_dtype_;
};

}  // namespace tf::ops

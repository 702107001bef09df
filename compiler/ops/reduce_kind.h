// What each of ONNX's Reduce* computes, as a map of every element, a combiner and a map of the
// result (mean: x, sum, / n; l2: x*x, sum, sqrt), and its double-precision reference with the
// error bound of a float32 kernel that sums in any order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ops/operator.h"

namespace tf::ops {

enum class ReduceOp { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };
constexpr ReduceOp kReduceOps[] = {ReduceOp::Sum,       ReduceOp::Mean,     ReduceOp::Max, ReduceOp::Min,
                                   ReduceOp::Prod,      ReduceOp::L1,       ReduceOp::L2,  ReduceOp::LogSum,
                                   ReduceOp::LogSumExp, ReduceOp::SumSquare};

struct ReduceOpInfo {
  const char* name;     // the operator's name: "reduce_sum"
  const char* formula;  // "sum(x)"
};
ReduceOpInfo reduce_op_info(ReduceOp op);
ir::ReduceKind reduce_op_combiner(ReduceOp op);  // log_sum_exp: Sum (of exp(x - max))
ir::Expr reduce_op_pre(ReduceOp op, ir::Expr x);
// The output from the combined value; `max` is log_sum_exp's max, `count` the elements reduced.
ir::Expr reduce_op_post(ReduceOp op, ir::Expr combined, ir::Expr max, int64_t count);

// Reduces x (extents `dims`) over the axes with reduced[k] != 0; out has dims with those set to 1.
void reduce_reference(ReduceOp op, const std::vector<int64_t>& dims, const std::vector<int64_t>& reduced,
                      const float* x, std::vector<float>* out, std::vector<float>* tol);

std::unique_ptr<Operator> make_reduce(ReduceOp op);

}  // namespace tf::ops

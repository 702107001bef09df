#include "compiler/ops/reduce_kind.h"

#include <cmath>
#include <limits>

#include "compiler/ir/math.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {

using ir::Expr;

ReduceOpInfo reduce_op_info(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return {"reduce_sum", "sum(x)"};
    case ReduceOp::Mean: return {"reduce_mean", "sum(x) / n"};
    case ReduceOp::Max: return {"reduce_max", "max(x)"};
    case ReduceOp::Min: return {"reduce_min", "min(x)"};
    case ReduceOp::Prod: return {"reduce_prod", "prod(x)"};
    case ReduceOp::L1: return {"reduce_l1", "sum(|x|)"};
    case ReduceOp::L2: return {"reduce_l2", "sqrt(sum(x*x))"};
    case ReduceOp::LogSum: return {"reduce_log_sum", "log(sum(x))"};
    case ReduceOp::LogSumExp: return {"reduce_log_sum_exp", "log(sum(exp(x - max))) + max"};
    case ReduceOp::SumSquare: return {"reduce_sum_square", "sum(x*x)"};
  }
  return {"?", "?"};
}

ir::ReduceKind reduce_op_combiner(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: return ir::ReduceKind::Max;
    case ReduceOp::Min: return ir::ReduceKind::Min;
    case ReduceOp::Prod: return ir::ReduceKind::Prod;
    default: return ir::ReduceKind::Sum;
  }
}

Expr reduce_op_pre(ReduceOp op, Expr x) {
  switch (op) {
    case ReduceOp::L1: return ir::abs(x);
    case ReduceOp::L2:
    case ReduceOp::SumSquare: return x * x;
    default: return x;
  }
}

Expr reduce_op_post(ReduceOp op, Expr v, Expr max, int64_t count) {
  switch (op) {
    case ReduceOp::Mean: return count == 1 ? v : v * Expr(static_cast<float>(1.0 / static_cast<double>(count)));
    case ReduceOp::L2: return ir::sqrt(v);
    case ReduceOp::LogSum: return ir::log(v);
    case ReduceOp::LogSumExp: return max ? ir::log(v) + max : v;  // nothing reduced: x itself
    default: return v;
  }
}

void reduce_reference(ReduceOp op, const std::vector<int64_t>& dims, const std::vector<int64_t>& reduced,
                      const float* x, std::vector<float>* out, std::vector<float>* tol) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int64_t> out_stride(rank, 0);
  int64_t outputs = 1, n = 1;
  for (int k = rank - 1; k >= 0; --k) {
    if (reduced[k]) {
      n *= dims[k];
    } else {
      out_stride[k] = outputs;
      outputs *= dims[k];
    }
  }
  const int64_t total = element_count(dims);
  // Each input's output: the flat index with the reduced axes dropped.
  std::vector<int64_t> dest(static_cast<size_t>(total));
  std::vector<int64_t> i(rank, 0);
  for (int64_t f = 0; f < total; ++f) {
    int64_t o = 0;
    for (int k = 0; k < rank; ++k) o += i[k] * out_stride[k];
    dest[f] = o;
    for (int k = rank - 1; k >= 0 && ++i[k] == dims[k]; --k) i[k] = 0;
  }
  const bool is_max = op == ReduceOp::Max, is_min = op == ReduceOp::Min, is_prod = op == ReduceOp::Prod;
  const double init = is_max ? -INFINITY : is_min ? INFINITY : is_prod ? 1 : 0;
  std::vector<double> acc(outputs, init), mag(outputs, 0), mx(outputs, -INFINITY), spread(outputs, 0);
  if (op == ReduceOp::LogSumExp) {
    for (int64_t f = 0; f < total; ++f) mx[dest[f]] = std::max(mx[dest[f]], static_cast<double>(x[f]));
  }
  for (int64_t f = 0; f < total; ++f) {
    const double v = x[f];
    double& a = acc[dest[f]];
    switch (op) {
      case ReduceOp::Max: a = std::max(a, v); break;
      case ReduceOp::Min: a = std::min(a, v); break;
      case ReduceOp::Prod: a *= v; break;
      case ReduceOp::L1: a += std::fabs(v); break;
      case ReduceOp::L2:
      case ReduceOp::SumSquare: a += v * v; break;
      case ReduceOp::LogSumExp:
        a += std::exp(v - mx[dest[f]]);
        spread[dest[f]] = std::max(spread[dest[f]], mx[dest[f]] - v);
        break;
      default: a += v;
    }
    mag[dest[f]] += op == ReduceOp::L2 || op == ReduceOp::SumSquare ? v * v : std::fabs(v);
  }
  const double u = kUnitRoundoff, g = summation_bound(static_cast<double>(n));
  out->assign(outputs, 0.0f);
  tol->assign(outputs, 0.0f);
  for (int64_t o = 0; o < outputs; ++o) {
    const double a = acc[o];
    double y = a, e = 0;
    switch (op) {
      case ReduceOp::Max:
      case ReduceOp::Min: break;  // exact
      case ReduceOp::Prod: e = 1.01 * static_cast<double>(n + 1) * u * std::fabs(a); break;
      case ReduceOp::Mean:
        y = a / static_cast<double>(n), e = g * mag[o] / static_cast<double>(n) + 2 * u * std::fabs(y);
        break;
      case ReduceOp::L2: y = std::sqrt(a), e = (g + 3 * u) * y; break;
      case ReduceOp::SumSquare: e = (g + u) * a; break;
      case ReduceOp::LogSum:
        // log moves by the sum's error relative to the sum; no bound where the sum is not positive.
        y = std::log(a), e = a > 0 ? (g * mag[o] + u * a) / a + 3 * u * std::fabs(y) : INFINITY;
        break;
      case ReduceOp::LogSumExp: {
        const double rel = g + (spread[o] + 3) * u;  // the sum of exps (all >= 0, the largest 1)
        y = std::log(a) + mx[o], e = rel + 3 * u * std::fabs(std::log(a)) + u * std::fabs(y);
        break;
      }
      default: e = g * mag[o] + u * std::fabs(a);
    }
    (*out)[o] = static_cast<float>(y);
    (*tol)[o] = static_cast<float>(2 * e + 1e-37);
  }
}

}  // namespace tf::ops

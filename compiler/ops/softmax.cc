// softmax, log_softmax and hardmax over the middle axis of [rows, cols, inner] (any axis of a
// tensor: rows and inner are the products of the extents before and after it):
//   softmax     y = exp(x - max) / sum(exp(x - max))
//   log_softmax y = x - max - log(sum(exp(x - max)))
//   hardmax     y = 1 at the first maximum along the axis, else 0
// The max, then the sum (or the first index of the max), as reductions over the axis (vectorized
// along the row when inner = 1, across inner otherwise), then the output. softmax stores exp(x -
// max) once and scales it (the exp is most of its time), and along the last axis does all of it
// one row at a time; log_softmax recomputes x - max.
#include <cmath>

#include "compiler/error.h"
#include "compiler/ir/math.h"
#include "compiler/ops/axis_reduction.h"
#include "compiler/ops/axis_shape.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

using ir::Expr;

enum class Kind { Softmax, LogSoftmax, Hardmax };

class AxisSoftmax : public AxisOperator {
 public:
  explicit AxisSoftmax(Kind k) : kind_(k) {}
  std::string name() const override {
    return kind_ == Kind::Softmax ? "softmax" : kind_ == Kind::LogSoftmax ? "log_softmax" : "hardmax";
  }
  std::string description() const override {
    const char* f = kind_ == Kind::Softmax      ? "exp(x - max) / sum(exp(x - max))"
                    : kind_ == Kind::LogSoftmax ? "x - max - log(sum(exp(x - max)))"
                                                : "1 at the first max, else 0";
    return std::string("Y = ") + f + " along the middle axis of X[rows, cols, inner]";
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return 5 * s[0] * s[1] * s[2]; }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], s[2]}; }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t rows = s[0], cols = s[1], inner = s[2], lanes = std::max(1, t.float32_lanes());
    te::Tensor x = te::placeholder({rows, cols, inner}, ir::DataType::float32(), "X");
    AxisReduction max_r(
        ir::ReduceKind::Max, rows, cols, inner, lanes, [&](Expr r, Expr k, Expr i) { return x(r, k, i); }, "max");
    const te::Tensor& mx = max_r.result();
    auto fk = [](Expr k) { return ir::make_cast(ir::DataType::float32(), k); };
    std::optional<AxisReduction> second;
    te::Tensor exps;
    if (kind_ == Kind::Hardmax) {
      // The first index of the max: the least k where x is the max (cols where it is not).
      second.emplace(
          ir::ReduceKind::Min, rows, cols, inner, lanes,
          [&](Expr r, Expr k, Expr i) {
            return ir::make_select(ir::make_binary(ir::BinaryOp::EQ, x(r, k, i), mx(r, i)), fk(k),
                                   Expr(static_cast<float>(cols)));
          },
          "first");
    } else if (kind_ == Kind::Softmax) {
      // exp once per element: stored by the pass that sums it, scaled by the output pass.
      exps = te::compute({rows, cols, inner},
                         [&](const te::Indices& j) { return ir::exp(x(j[0], j[1], j[2]) - mx(j[0], j[2])); }, "E",
                         {"r", "c", "i"});
      second.emplace(
          ir::ReduceKind::Sum, rows, cols, inner, lanes, [&](Expr r, Expr k, Expr i) { return exps(r, k, i); }, "sum");
    } else {
      second.emplace(
          ir::ReduceKind::Sum, rows, cols, inner, lanes,
          [&](Expr r, Expr k, Expr i) { return ir::exp(x(r, k, i) - mx(r, i)); }, "sum");
    }
    const te::Tensor sec = second->result();
    te::Tensor y = te::compute({rows, cols, inner},
                               [&](const te::Indices& j) {
                                 const Expr v = x(j[0], j[1], j[2]), m = mx(j[0], j[2]), r = sec(j[0], j[2]);
                                 switch (kind_) {
                                   case Kind::Softmax: return exps(j[0], j[1], j[2]) * (Expr(1.0f) / r);
                                   case Kind::LogSoftmax: return v - m - ir::log(r);
                                   case Kind::Hardmax:
                                     return ir::make_select(ir::make_binary(ir::BinaryOp::EQ, fk(j[1]), r), Expr(1.0f),
                                                            Expr(0.0f));
                                 }
                                 return Expr();
                               },
                               "Y", {"r", "c", "i"});
    Scheduled result = make_scheduled({x}, y);
    const bool parallel = cfg.get_bool("parallel");
    if (kind_ == Kind::Softmax && max_r.along_rows()) {
      // Along the last axis each stage has one reader (the max the exps, the exps the sum and the
      // output, the sum the output): one row at a time, max, exps and sum while it is in L1.
      schedule::Schedule& sch = *result.schedule;
      schedule::Stage& out = sch[y];
      second->compute_at(sch, out, out.axis(0));
      schedule::Stage& e = sch[exps];
      e.compute_at(out, out.axis(0));
      max_r.compute_at(sch, e, e.axis(0));
      auto [eo, ei] = e.split(e.axis(1), lanes);
      (void)eo;
      e.vectorize(ei);
      schedule_axis_output(sch, y, lanes, parallel);
      return result;
    }
    // The max feeds the second pass and the output, so each is a pass of its own.
    max_r.compute_root(*result.schedule, parallel);
    if (exps.op()) schedule_axis_output(*result.schedule, exps, lanes, parallel);
    second->compute_root(*result.schedule, parallel);
    schedule_axis_output(*result.schedule, y, lanes, parallel);
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int64_t rows = s[0], cols = s[1], inner = s[2];
    out->assign(static_cast<size_t>(rows * cols * inner), 0.0f);
    tol->assign(out->size(), 1e-37f);
    const double u = kUnitRoundoff, g = summation_bound(static_cast<double>(cols));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = 0; i < inner; ++i) {
        auto at = [&](int64_t c) { return static_cast<size_t>((r * cols + c) * inner + i); };
        double mx = -INFINITY, sum = 0, spread = 0;
        int64_t first = 0;
        for (int64_t c = 0; c < cols; ++c) {
          if (in[0][at(c)] > mx) mx = in[0][at(c)], first = c;
        }
        for (int64_t c = 0; c < cols; ++c)
          sum += std::exp(in[0][at(c)] - mx), spread = std::max(spread, mx - in[0][at(c)]);
        // The sum of exps (terms at most 1, one of them 1) is within this of the exact one,
        // relative: each exp's argument rounds (|x - max| u), exp within 3 ulp, the sum.
        const double sum_rel = g + (spread + 3) * u;
        for (int64_t c = 0; c < cols; ++c) {
          const double x = in[0][at(c)];
          double y = 0, e = 0;
          if (kind_ == Kind::Softmax) {
            y = std::exp(x - mx) / sum;
            e = ((mx - x + 3) * u + sum_rel + 4 * u) * y;
          } else if (kind_ == Kind::LogSoftmax) {
            const double ls = std::log(sum);
            y = x - mx - ls;
            e = u * (mx - x) + 1.01 * sum_rel + 3 * u * ls + 2 * u * std::fabs(y);
          } else {
            y = c == first ? 1 : 0;
          }
          (*out)[at(c)] = static_cast<float>(y);
          (*tol)[at(c)] = static_cast<float>(2 * e + 1e-37);
        }
      }
    }
  }

 private:
  Kind kind_;
};

}  // namespace

std::unique_ptr<Operator> make_softmax() { return std::make_unique<AxisSoftmax>(Kind::Softmax); }
std::unique_ptr<Operator> make_log_softmax() { return std::make_unique<AxisSoftmax>(Kind::LogSoftmax); }
std::unique_ptr<Operator> make_hardmax() { return std::make_unique<AxisSoftmax>(Kind::Hardmax); }

}  // namespace tf::ops

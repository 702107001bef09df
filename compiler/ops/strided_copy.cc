// strided_copy: y[j] = x[i] with i[k] = s[k] + t[k] * j[k] on every axis (rank <= 6), indices
// outside x handled by `mode`. One op for ONNX's Slice, Pad and Tile:
//   Slice (starts, ends, steps)      o = the count, s = the clamped start, t = the step (negative too), mode 0
//   Pad (begins b, ends e; < 0 crop) o = d + b + e, s = -b, t = 1, mode constant / edge / reflect / wrap
//   Tile (repeats r)                 o = d * r, s = 0, t = 1, mode wrap
// Modes: 0 none (every index must fall inside x: checked), 1 constant (the value is a float input
// of one element, so one kernel serves every value; refused where no index falls outside x), 2 edge (clamped), 3
// reflect (numpy's, about the edge elements, periodic where the pad is wider than the input: period 2(d-1)), 4 wrap
// (modulo d). An axis whose indices all fall inside x reads it directly (a contiguous inner axis
// stays contiguous); the output's last axis is vectorized.
// Shape: rank, mode, d0..d5 (x), o0..o5 (y), s0..s5 (start, default 0), t0..t5 (step, default 1):
// `rank=2,mode=1,d0=3,d1=4,o0=5,o1=4,s0=-1`.
#include <algorithm>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"
#include "compiler/ops/ranked_shape.h"

namespace tf::ops {
namespace {

using ir::Expr;

enum Mode : int64_t { kNone = 0, kConstant = 1, kEdge = 2, kReflect = 3, kWrap = 4 };

const RankedShape& layout() {
  static const RankedShape r({"rank", "mode"}, {{"mode", kNone}},
                             {{"d", 1, true}, {"o", 1, true}, {"s", 0, false}, {"t", 1, false}});
  return r;
}
enum Group { kD = 0, kO = 1, kS = 2, kT = 3 };

// x's index on an axis for output index j, mapped into [0, d) by the mode (constant: clamped; the
// caller selects the value where it was outside).
int64_t map_index(int64_t i, int64_t d, int64_t mode) {
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case kReflect: {
      if (d == 1) return 0;
      const int64_t p = 2 * (d - 1), m = ((i % p) + p) % p;
      return m < d ? m : p - m;
    }
    case kWrap: return ((i % d) + d) % d;
    default: return std::clamp<int64_t>(i, 0, d - 1);
  }
}

class StridedCopy : public Operator {
 public:
  std::string name() const override { return "strided_copy"; }
  std::string description() const override {
    return "Y[j] = X[s + t*j] per axis (rank <= 6); outside X by mode: 0 none, 1 constant (input 2), 2 edge, 3 reflect, 4 wrap";
  }
  std::vector<std::string> shape_names() const override { return layout().names(); }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    return layout().from_named(*this, named);
  }
  std::string shape_text(const std::vector<int64_t>& s) const override { return layout().text(s); }
  void check_shape(const std::vector<int64_t>& s) const override {
    layout().check(*this, s);
    const int64_t mode = s[1];
    if (mode < kNone || mode > kWrap)
      fail_extent(*this, "mode", mode, "is not 0 (none), 1 (constant), 2 (edge), 3 (reflect) or 4 (wrap)");
    constexpr int64_t kSane = int64_t{1} << 31;
    bool reaches_out = false;
    for (int k = 0; k < s[0]; ++k) {
      const int64_t d = at(s, kD, k), o = at(s, kO, k), st = at(s, kS, k), t = at(s, kT, k);
      if (d <= 0 || d > kSane) fail_extent(*this, layout().field(kD, k), d, "must be positive and sane");
      if (o <= 0 || o > kSane) fail_extent(*this, layout().field(kO, k), o, "must be positive and sane");
      if (t == 0 || t > kSane || t < -kSane)
        fail_extent(*this, layout().field(kT, k), t, "must be a nonzero sane step");
      if (st > kSane || st < -kSane) fail_extent(*this, layout().field(kS, k), st, "is not a sane start");
      const int64_t last = st + t * (o - 1);
      reaches_out |= !in_range(st, t, o, d);
      if (mode == kNone && (st < 0 || st >= d || last < 0 || last >= d)) {
        fail_extent(*this, layout().field(kS, k), st,
                    "with o" + std::to_string(k) + " = " + std::to_string(o) + " and t" + std::to_string(k) + " = " +
                        std::to_string(t) + " reads indices " + std::to_string(st) + ".." + std::to_string(last) +
                        " outside [0, " + std::to_string(d) + ") and mode 0 (none) defines nothing there");
      }
    }
    // The value is an argument only where it is read.
    if (mode == kConstant && !reaches_out)
      fail_extent(*this, "mode", mode, "(constant) pads nothing: every index falls inside X (use mode 0)");
  }
  int64_t flops(const std::vector<int64_t>& s) const override {
    return element_count(output_shape(s));
  }  // elements written
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    std::vector<std::vector<int64_t>> in = {layout().group(s, kD)};
    if (s[1] == kConstant) in.push_back({1});
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return layout().group(s, kO); }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    space::ConfigSpace cs;
    add_parallel_knob(cs, s[0], flops(s), "run the outer loop on the thread pool");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int rank = static_cast<int>(s[0]);
    const int64_t mode = s[1], lanes = std::max(1, t.float32_lanes());
    te::Tensor x = te::placeholder(layout().group(s, kD), ir::DataType::float32(), "X");
    te::Tensor value = mode == kConstant ? te::placeholder({1}, ir::DataType::float32(), "value") : te::Tensor();
    te::Tensor y = te::compute(
        output_shape(s),
        [&](const te::Indices& j) {
          te::Indices i(static_cast<size_t>(rank));
          Expr inside;
          for (int k = 0; k < rank; ++k) {
            const int64_t d = at(s, kD, k), st = at(s, kS, k), step = at(s, kT, k), o = at(s, kO, k);
            const Expr raw = Expr(st) + j[k] * step;
            if (in_range(st, step, o, d)) {
              i[k] = raw;
              continue;
            }
            i[k] = index_expr(raw, d, mode);
            if (mode == kConstant) {
              const Expr ok = ir::logical_and(raw >= Expr(int64_t{0}), raw < Expr(d));
              inside = inside ? ir::logical_and(inside, ok) : ok;
            }
          }
          return inside ? ir::make_select(inside, x(i), value(Expr(0))) : x(i);
        },
        "Y");
    Scheduled result = make_scheduled({x, value}, y);
    schedule::Stage& st = (*result.schedule)[y];
    if (at(s, kO, rank - 1) > 1) {
      auto [o, in] = st.split(st.axis(rank - 1), lanes);
      (void)o;
      st.vectorize(in);
    }
    if (cfg.get_bool("parallel") && rank > 1) st.parallel(st.axis(0));
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int rank = static_cast<int>(s[0]);
    const auto dims = layout().group(s, kD), odims = output_shape(s);
    std::vector<int64_t> stride(rank, 1);
    for (int k = rank - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
    const int64_t total = element_count(odims);
    out->assign(static_cast<size_t>(total), 0.0f);
    tol->assign(out->size(), 0.0f);  // a copy is exact
    std::vector<int64_t> j(rank, 0);
    for (int64_t f = 0; f < total; ++f) {
      int64_t at_x = 0;
      bool inside = true;
      for (int k = 0; k < rank; ++k) {
        const int64_t i = at(s, kS, k) + at(s, kT, k) * j[k];
        inside &= i >= 0 && i < dims[k];
        at_x += map_index(i, dims[k], s[1]) * stride[k];
      }
      (*out)[f] = s[1] == kConstant && !inside ? in[1][0] : in[0][at_x];
      for (int k = rank - 1; k >= 0 && ++j[k] == odims[k]; --k) j[k] = 0;
    }
  }

 private:
  static int64_t at(const std::vector<int64_t>& s, int g, int k) { return layout().at(s, g, k); }
  static bool in_range(int64_t st, int64_t step, int64_t o, int64_t d) {
    const int64_t last = st + step * (o - 1);
    return st >= 0 && st < d && last >= 0 && last < d;
  }
  // map_index as IR: the index into [0, d) for a raw one that may fall outside.
  static Expr index_expr(const Expr& raw, int64_t d, int64_t mode) {
    switch (mode) {
      case kReflect: {
        if (d == 1) return Expr(int64_t{0});
        const Expr m = ir::floormod(raw, Expr(2 * (d - 1)));
        return ir::make_select(m < Expr(d), m, Expr(2 * (d - 1)) - m);
      }
      case kWrap: return ir::floormod(raw, Expr(d));
      default: return ir::min(ir::max(raw, Expr(int64_t{0})), Expr(d - 1));
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_strided_copy() { return std::make_unique<StridedCopy>(); }

}  // namespace tf::ops

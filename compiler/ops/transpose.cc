// transpose of a tensor of rank <= 6: out.shape[k] = in.shape[perm[k]] (numpy's transpose). The
// shape is rank, d0..d5 (the input's extents, 1 past the rank) and p0..p5 (the permutation,
// identity past the rank): named, `rank=3,d0=2,d1=3,d2=4,p0=2,p1=0,p2=1`. The output's last axis is
// vectorized; when it does not walk the input's last axis, the loops are blocked so a block of
// output rows reads whole cache lines of the input (knob `block`).
#include <algorithm>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

using ir::Expr;

constexpr int kMaxRank = 6;

class Transpose : public Operator {
 public:
  std::string name() const override { return "transpose"; }
  std::string description() const override { return "out[j] = in[i] with i[perm[k]] = j[k] (rank <= 6)"; }
  std::vector<std::string> shape_names() const override {
    std::vector<std::string> n = {"rank"};
    append_numbered_names(&n, "d", kMaxRank);
    append_numbered_names(&n, "p", kMaxRank);
    return n;
  }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    reject_unknown_extents(*this, named, "rank, d0..d5, p0..p5");
    auto it = named.find("rank");
    if (it == named.end())
      throw CompileError("op 'transpose': extent rank= is missing (e.g. rank=3,d0=2,d1=3,d2=4,p0=2,p1=0,p2=1)");
    const int64_t rank = it->second;
    if (rank < 1 || rank > kMaxRank)
      throw CompileError("op 'transpose': extent rank = " + std::to_string(rank) + " is outside [1, 6]");
    std::vector<int64_t> shape = {rank};
    for (int k = 0; k < kMaxRank; ++k) {
      auto d = named.find("d" + std::to_string(k));
      if (k < rank && d == named.end())
        throw CompileError("op 'transpose': extent d" + std::to_string(k) + "= is missing (rank " +
                           std::to_string(rank) + ")");
      shape.push_back(d == named.end() ? 1 : d->second);
    }
    for (int k = 0; k < kMaxRank; ++k) {
      auto p = named.find("p" + std::to_string(k));
      if (k < rank && p == named.end())
        throw CompileError("op 'transpose': extent p" + std::to_string(k) + "= is missing (rank " +
                           std::to_string(rank) + ")");
      shape.push_back(p == named.end() ? k : p->second);
    }
    return shape;
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    auto fail = [&](const std::string& field, const std::string& why) {
      throw CompileError("op 'transpose': extent " + field + " " + why);
    };
    const int64_t rank = s[0];
    if (rank < 1 || rank > kMaxRank) fail("rank", "= " + std::to_string(rank) + " is outside [1, 6]");
    std::vector<bool> seen(kMaxRank, false);
    for (int k = 0; k < kMaxRank; ++k) {
      const std::string d = "d" + std::to_string(k), p = "p" + std::to_string(k);
      const int64_t dv = s[1 + k], pv = s[1 + kMaxRank + k];
      if (dv <= 0 || dv > (int64_t{1} << 31)) fail(d, "= " + std::to_string(dv) + " must be positive and sane");
      if (k >= rank && dv != 1)
        fail(d, "= " + std::to_string(dv) + " is past the rank " + std::to_string(rank) + " (must be 1)");
      if (k >= rank && pv != k)
        fail(p, "= " + std::to_string(pv) + " is past the rank " + std::to_string(rank) + " (must be " +
                    std::to_string(k) + ")");
      if (k < rank) {
        if (pv < 0 || pv >= rank)
          fail(p, "= " + std::to_string(pv) + " is not an axis of rank " + std::to_string(rank));
        if (seen[pv]) fail(p, "= " + std::to_string(pv) + " repeats an axis: perm must be a permutation");
        seen[pv] = true;
      }
    }
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    std::string t = "rank=" + std::to_string(s[0]);
    for (int k = 0; k < s[0]; ++k) t += ",d" + std::to_string(k) + "=" + std::to_string(s[1 + k]);
    for (int k = 0; k < s[0]; ++k) t += ",p" + std::to_string(k) + "=" + std::to_string(s[1 + kMaxRank + k]);
    return t;
  }
  int64_t flops(const std::vector<int64_t>& s) const override {
    return element_count(output_shape(s));  // elements moved
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {std::vector<int64_t>(s.begin() + 1, s.begin() + 1 + s[0])};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    std::vector<int64_t> out;
    out.reserve(s[0]);
    for (int k = 0; k < s[0]; ++k) out.push_back(s[1 + s[1 + kMaxRank + k]]);
    return out;
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    const int64_t rank = s[0];
    const bool moves_last = s[1 + kMaxRank + rank - 1] != rank - 1;
    int64_t total = 1;
    for (int64_t d : output_shape(s)) total *= d;
    space::ConfigSpace cs;
    cs.add_knob("block", {Json(1), Json(8), Json(16), Json(32)}, moves_last ? 2 : 0,
                "rows of the output axis that walks the input's last axis per block (1: no blocking)");
    add_parallel_knob(cs, rank, total, "run the outer loop on the thread pool");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int rank = static_cast<int>(s[0]);
    const int64_t lanes = std::max(1, t.float32_lanes());
    std::vector<int> perm;
    perm.reserve(rank);
    for (int k = 0; k < rank; ++k) perm.push_back(static_cast<int>(s[1 + kMaxRank + k]));
    Scheduled result;
    te::Tensor x = te::placeholder(input_shapes(s)[0], ir::DataType::float32(), "X");
    te::Tensor y = te::compute(
        output_shape(s),
        [&](const te::Indices& j) {
          te::Indices i(static_cast<size_t>(rank));
          for (int k = 0; k < rank; ++k) i[perm[k]] = j[k];
          return x(i);
        },
        "Y");
    result.inputs = {x};
    result.outputs = {y};
    result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
    schedule::Stage& st = (*result.schedule)[y];
    const int64_t block = cfg.get_int("block");
    // The output axis that walks the input's last (contiguous) axis.
    const int walker = static_cast<int>(std::find(perm.begin(), perm.end(), rank - 1) - perm.begin());
    auto [last_o, last_i] = st.split(st.axis(rank - 1), lanes);
    if (block > 1 && walker != rank - 1) {
      auto [w_o, w_i] = st.split(st.axis(walker), block);
      std::vector<ir::IterVar> order;
      for (int k = 0; k < rank - 1; ++k) {
        if (k != walker) order.push_back(st.axis(k));
      }
      order.insert(order.end(), {w_o, last_o, w_i, last_i});
      st.reorder(order);
    }
    st.vectorize(last_i);
    if (cfg.get_bool("parallel")) st.parallel(st.leaf_iter_vars().front());
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int rank = static_cast<int>(s[0]);
    const auto in_shape = input_shapes(s)[0], out_shape = output_shape(s);
    std::vector<int64_t> in_stride(static_cast<size_t>(rank), 1);
    for (int k = rank - 2; k >= 0; --k) in_stride[k] = in_stride[k + 1] * in_shape[k + 1];
    int64_t total = 1;
    for (int64_t d : out_shape) total *= d;
    out->assign(static_cast<size_t>(total), 0.0f);
    tol->assign(static_cast<size_t>(total), 1e-37f);  // a copy is exact
    std::vector<int64_t> j(static_cast<size_t>(rank), 0);
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t at = 0;
      for (int k = 0; k < rank; ++k) at += j[k] * in_stride[s[1 + kMaxRank + k]];
      (*out)[flat] = in[0][at];
      for (int k = rank - 1; k >= 0 && ++j[k] == out_shape[k]; --k) j[k] = 0;
    }
  }
};

}  // namespace

std::unique_ptr<Operator> make_transpose() { return std::make_unique<Transpose>(); }

}  // namespace tf::ops

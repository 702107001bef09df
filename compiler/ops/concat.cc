// concat of up to 8 tensors of rank <= 6 along one axis. The shape is rank, axis, inputs, d0..d5
// (the output's extents, 1 past the rank; d<axis> is the sum of the inputs' extents along the
// axis) and a0..a7 (each input's extent along the axis, 0 past the inputs): named,
// `rank=4,axis=1,inputs=2,d0=1,d2=28,d3=28,a0=64,a1=64` (d<axis> may be left out). Each output
// element selects its input by where it falls on the axis; the output's last axis is vectorized.
#include <algorithm>

#include "compiler/error.h"
#include "compiler/ops/model_operators.h"

namespace tf::ops {
namespace {

using ir::Expr;

constexpr int kMaxRank = 6, kMaxInputs = 8;
constexpr int kD = 3, kA = kD + kMaxRank;  // positions of d0 and a0 in the shape

class Concat : public Operator {
 public:
  std::string name() const override { return "concat"; }
  std::string description() const override {
    return "out = [x0, x1, ...] joined along `axis` (up to 8 inputs, rank <= 6)";
  }
  std::vector<std::string> shape_names() const override {
    std::vector<std::string> n = {"rank", "axis", "inputs"};
    append_numbered_names(&n, "d", kMaxRank);
    append_numbered_names(&n, "a", kMaxInputs);
    return n;
  }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    reject_unknown_extents(*this, named, "rank, axis, inputs, d0..d5, a0..a7");
    auto need = [&](const std::string& n) {
      auto it = named.find(n);
      if (it == named.end())
        throw CompileError("op 'concat': extent " + n +
                           "= is missing (e.g. rank=4,axis=1,inputs=2,d0=1,d2=28,d3=28,a0=64,a1=64)");
      return it->second;
    };
    const int64_t rank = need("rank"), axis = need("axis"), inputs = need("inputs");
    if (inputs < 1 || inputs > kMaxInputs)
      throw CompileError("op 'concat': extent inputs = " + std::to_string(inputs) + " is outside [1, 8]");
    if (rank < 1 || rank > kMaxRank)
      throw CompileError("op 'concat': extent rank = " + std::to_string(rank) + " is outside [1, 6]");
    std::vector<int64_t> shape = {rank, axis, inputs};
    int64_t sum = 0;
    for (int k = 0; k < inputs && k < kMaxInputs; ++k) sum += need("a" + std::to_string(k));
    for (int k = 0; k < kMaxRank; ++k) {
      const std::string d = "d" + std::to_string(k);
      auto it = named.find(d);
      if (it != named.end()) {
        shape.push_back(it->second);
      } else if (k == axis) {
        shape.push_back(sum);
      } else {
        shape.push_back(k < rank ? need(d) : 1);
      }
    }
    for (int k = 0; k < kMaxInputs; ++k) {
      auto it = named.find("a" + std::to_string(k));
      shape.push_back(it == named.end() ? 0 : it->second);
    }
    return shape;
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    auto fail = [&](const std::string& field, const std::string& why) {
      throw CompileError("op 'concat': extent " + field + " " + why);
    };
    const int64_t rank = s[0], axis = s[1], inputs = s[2];
    if (rank < 1 || rank > kMaxRank) fail("rank", "= " + std::to_string(rank) + " is outside [1, 6]");
    if (axis < 0 || axis >= rank)
      fail("axis", "= " + std::to_string(axis) + " is not an axis of rank " + std::to_string(rank));
    if (inputs < 1 || inputs > kMaxInputs) fail("inputs", "= " + std::to_string(inputs) + " is outside [1, 8]");
    int64_t sum = 0;
    for (int k = 0; k < kMaxInputs; ++k) {
      const int64_t a = s[kA + k];
      const std::string field = "a" + std::to_string(k);
      if (k < inputs && (a <= 0 || a > (int64_t{1} << 31)))
        fail(field, "= " + std::to_string(a) + " must be positive and sane");
      if (k >= inputs && a != 0)
        fail(field, "= " + std::to_string(a) + " is past the " + std::to_string(inputs) + " inputs (must be 0)");
      sum += a;
    }
    for (int k = 0; k < kMaxRank; ++k) {
      const int64_t d = s[kD + k];
      const std::string field = "d" + std::to_string(k);
      if (d <= 0 || d > (int64_t{1} << 31)) fail(field, "= " + std::to_string(d) + " must be positive and sane");
      if (k >= rank && d != 1)
        fail(field, "= " + std::to_string(d) + " is past the rank " + std::to_string(rank) + " (must be 1)");
      if (k == axis && d != sum)
        fail(field, "= " + std::to_string(d) + " is not the sum of a0..a" + std::to_string(inputs - 1) + " (" +
                        std::to_string(sum) + ")");
    }
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    std::string t =
        "rank=" + std::to_string(s[0]) + ",axis=" + std::to_string(s[1]) + ",inputs=" + std::to_string(s[2]);
    for (int k = 0; k < s[0]; ++k) {
      if (k != s[1]) t += ",d" + std::to_string(k) + "=" + std::to_string(s[kD + k]);
    }
    for (int k = 0; k < s[2]; ++k) t += ",a" + std::to_string(k) + "=" + std::to_string(s[kA + k]);
    return t;
  }
  int64_t flops(const std::vector<int64_t>& s) const override {
    return element_count(output_shape(s));  // elements moved
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    std::vector<std::vector<int64_t>> in;
    for (int k = 0; k < s[2]; ++k) {
      std::vector<int64_t> shape = output_shape(s);
      shape[s[1]] = s[kA + k];
      in.push_back(shape);
    }
    return in;
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    return std::vector<int64_t>(s.begin() + kD, s.begin() + kD + s[0]);
  }

  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target&) const override {
    space::ConfigSpace cs;
    add_parallel_knob(cs, s[0], flops(s), "run the outer loop on the thread pool");
    return cs;
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int rank = static_cast<int>(s[0]), axis = static_cast<int>(s[1]), inputs = static_cast<int>(s[2]);
    const int64_t lanes = std::max(1, t.float32_lanes());
    Scheduled result;
    const auto in_shapes = input_shapes(s);
    for (int k = 0; k < inputs; ++k)
      result.inputs.push_back(te::placeholder(in_shapes[k], ir::DataType::float32(), "x" + std::to_string(k)));
    te::Tensor y = te::compute(
        output_shape(s),
        [&](const te::Indices& j) {
          // From the last input back: each earlier one takes over below its end on the axis. Indices
          // are clamped into each input, so every select's both sides are in bounds.
          std::vector<int64_t> start(static_cast<size_t>(inputs), 0);
          for (int k = 1; k < inputs; ++k) start[k] = start[k - 1] + s[kA + k - 1];
          auto read = [&](int k) {
            te::Indices i = j;
            i[axis] = ir::min(ir::max(j[axis] - start[k], Expr(0)), Expr(s[kA + k] - 1));
            if (inputs == 1) i[axis] = j[axis];
            return result.inputs[k](i);
          };
          Expr v = read(inputs - 1);
          for (int k = inputs - 2; k >= 0; --k) v = ir::make_select(j[axis] < Expr(start[k] + s[kA + k]), read(k), v);
          return v;
        },
        "Y");
    result.outputs = {y};
    result.schedule = std::make_unique<schedule::Schedule>(result.outputs);
    schedule::Stage& st = (*result.schedule)[y];
    auto [last_o, last_i] = st.split(st.axis(rank - 1), lanes);
    (void)last_o;
    st.vectorize(last_i);
    if (cfg.get_bool("parallel")) st.parallel(st.leaf_iter_vars().front());
    return result;
  }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    const int rank = static_cast<int>(s[0]), axis = static_cast<int>(s[1]);
    const auto out_shape = output_shape(s);
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < axis; ++k) outer *= out_shape[k];
    for (int k = axis + 1; k < rank; ++k) inner *= out_shape[k];
    out->clear();
    for (int64_t o = 0; o < outer; ++o) {
      for (int k = 0; k < s[2]; ++k) {
        const int64_t chunk = s[kA + k] * inner;
        out->insert(out->end(), in[k] + o * chunk, in[k] + (o + 1) * chunk);
      }
    }
    tol->assign(out->size(), 1e-37f);  // a copy is exact
  }
};

}  // namespace

std::unique_ptr<Operator> make_concat() { return std::make_unique<Concat>(); }

}  // namespace tf::ops

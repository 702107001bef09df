// The layout operators that let a model convert once and stay blocked between layers:
// layout_to_nchwc (NCHW -> (n, C/b, h, w, b), padded channels zero), layout_from_nchwc (back,
// padded channels dropped), layout_reblock_nchwc (one block into another) and pack_conv_weight (OIHW -> (K/ob, C/ib, r,
// s, ib, ob), padding zero). They move data and compute nothing, so their "flops" are the elements written: a tuner
// then ranks their configs by elements per second.
#include <algorithm>

#include "compiler/error.h"
#include "compiler/ops/nchwc_ops.h"
#include "compiler/ops/nchwc_schedule.h"
#include "compiler/ops/nchwc_shape.h"

namespace tf::ops {
namespace {

using ir::Expr;
using te::Tensor;

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t d : v) p *= d;
  return p;
}

// An op whose extents are all named, some with defaults.
class LayoutOp : public Operator {
 public:
  LayoutOp(std::vector<std::string> names, std::map<std::string, int64_t> defaults,
           ir::DataType dtype = ir::DataType::float32())
      : dtype_(dtype), names_(std::move(names)), defaults_(std::move(defaults)) {}
  std::vector<std::string> shape_names() const override { return names_; }
  std::vector<int64_t> shape_from_named(const std::map<std::string, int64_t>& named) const override {
    auto all = defaults_;
    for (const auto& [k, v] : named) all[k] = v;
    return Operator::shape_from_named(all);
  }
  std::string shape_text(const std::vector<int64_t>& s) const override {
    std::string t;
    for (size_t i = 0; i < names_.size() && i < s.size(); ++i)
      t += (t.empty() ? "" : ",") + names_[i] + "=" + std::to_string(s[i]);
    return t;
  }
  void check_shape(const std::vector<int64_t>& s) const override {
    Operator::check_shape(s);
    for (size_t i = 0; i < names_.size(); ++i) {
      const bool block = names_[i] == "b" || names_[i] == "ib" || names_[i] == "ob";
      if (block && s[i] > 64) {
        throw CompileError("op '" + name() + "' shape " + shape_text(s) + ": " + names_[i] + " = " +
                           std::to_string(s[i]) + " must be in 1..64 (a block of channels)");
      }
    }
  }
  int64_t flops(const std::vector<int64_t>& s) const override { return product(output_shape(s)); }

  void reference(const std::vector<int64_t>& s, const std::vector<const float*>& in, std::vector<float>* out,
                 std::vector<float>* tol) const override {
    *out = convert(s, in[0]);
    tol->assign(out->size(), 0.0f);  // a copy is exact
  }

 protected:
  virtual std::vector<float> convert(const std::vector<int64_t>& s, const float* in) const = 0;

  // The knobs every layout op has: which axis is the vector (the blocked lanes: contiguous
  // writes; or the width: contiguous plain rows) and whether the outer loops run in parallel.
  static space::ConfigSpace layout_space(bool has_width, bool width_by_default = false) {
    space::ConfigSpace cs;
    if (has_width) {
      cs.add_knob("vector_axis", {Json("lanes"), Json("width")}, width_by_default ? 1 : 0,
                  "vectorize the channel lanes of the block (gathered reads) or the image width (strided writes)");
    }
    cs.add_knob("parallel", {Json("outer"), Json("none")}, 0,
                "share the outer three loops (batch, channels or blocks, rows) among threads, or not");
    return cs;
  }

  // Schedules a 5-D (n, blocks-or-channels, h, w, lanes) or plain stage.
  static void schedule_copy(schedule::Stage& st, const space::Config& cfg, const ir::IterVar& vector_axis,
                            int64_t lanes, int64_t extent) {
    // The rows too: an image's 3 channels are one block, and the conv after it shares out rows.
    if (cfg.get_string("parallel") == "outer") st.parallel(st.fuse(st.fuse(st.axis(0), st.axis(1)), st.axis(2)));
    if (lanes <= 1) return;
    if (extent <= lanes) {
      st.vectorize(vector_axis);
      return;
    }
    auto [o, i] = st.split(vector_axis, lanes);
    st.vectorize(i);
  }

  // Schedules `out` (n, blocks, h, w, lanes), a copy of `data`: vectors of the block's lanes, or
  // with the width moved innermost, vectors along the width.
  static Scheduled schedule_blocked_copy(const Tensor& data, const Tensor& out, const space::Config& cfg,
                                         const codegen::Target& t, int64_t block, int64_t width) {
    Scheduled r{std::make_unique<schedule::Schedule>(std::vector<Tensor>{out}), {data}, {out}};
    schedule::Stage& st = (*r.schedule)[out];
    const bool lanes_vector = cfg.get_string("vector_axis") == "lanes";
    if (!lanes_vector) st.reorder({st.axis(0), st.axis(1), st.axis(2), st.axis(4), st.axis(3)});
    schedule_copy(st, cfg, lanes_vector ? st.axis(4) : st.axis(3), t.float32_lanes(), lanes_vector ? block : width);
    return r;
  }

  // The element type the op moves: float32, or uint8 for a quantized model's activations (the
  // op's name then ends in _u8).
  std::string typed(const std::string& base) const { return dtype_.is_float() ? base : base + "_u8"; }
  Expr zero() const { return ir::make_const(dtype_, 0.0); }
  const ir::DataType dtype_;

 private:
  std::vector<std::string> names_;
  std::map<std::string, int64_t> defaults_;
};

class ToNchwc : public LayoutOp {
 public:
  explicit ToNchwc(ir::DataType dtype = ir::DataType::float32())
      : LayoutOp({"n", "c", "h", "w", "b"}, {{"n", 1}, {"b", 16}}, dtype) {}
  std::string name() const override { return typed("layout_to_nchwc"); }
  std::string description() const override { return "out[N,C/b,H,W,b] = data[N,C,H,W] blocked, padded channels 0"; }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[2], s[3]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    return {s[0], ceil_div(s[1], s[4]), s[2], s[3], s[4]};
  }
  // A block narrower than a vector (a first layer's 3 channels) fills vectors along the width.
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return layout_space(true, s[4] < t.float32_lanes());
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t c = s[1], b = s[4];
    Tensor data = te::placeholder(input_shapes(s)[0], dtype_, "data");
    Tensor out =
        te::compute(output_shape(s),
                    [&](const te::Indices& i) {
                      Expr ch = i[1] * Expr(b) + i[4];
                      if (c % b == 0) return data(i[0], ch, i[2], i[3]);
                      return ir::make_select(ch < Expr(c), data(i[0], ir::min(ch, Expr(c - 1)), i[2], i[3]), zero());
                    },
                    "out", {"n", "cb", "y", "x", "l"});
    return schedule_blocked_copy(data, out, cfg, t, b, s[3]);
  }

 protected:
  std::vector<float> convert(const std::vector<int64_t>& s, const float* in) const override {
    return activation_to_blocked(in, s[0], s[1], s[2] * s[3], s[4]);
  }
};

class FromNchwc : public LayoutOp {
 public:
  explicit FromNchwc(ir::DataType dtype = ir::DataType::float32())
      : LayoutOp({"n", "c", "h", "w", "b"}, {{"n", 1}, {"b", 16}}, dtype) {}
  std::string name() const override { return typed("layout_from_nchwc"); }
  std::string description() const override {
    return "out[N,C,H,W] = data[N,C/b,H,W,b] unblocked, padded channels dropped";
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], ceil_div(s[1], s[4]), s[2], s[3], s[4]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override { return {s[0], s[1], s[2], s[3]}; }
  // Vectors along the width write whole plain rows; vectors of a block's lanes would scatter each
  // lane to another channel plane (5x slower on 64x112x112).
  space::ConfigSpace config_space(const std::vector<int64_t>&, const codegen::Target&) const override {
    return layout_space(true, true);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t b = s[4];
    Tensor data = te::placeholder(input_shapes(s)[0], dtype_, "data");
    Tensor out = te::compute(output_shape(s),
                             [&](const te::Indices& i) {
                               return data(i[0], ir::floordiv(i[1], Expr(b)), i[2], i[3], ir::floormod(i[1], Expr(b)));
                             },
                             "out", {"n", "c", "y", "x"});
    Scheduled r{std::make_unique<schedule::Schedule>(std::vector<Tensor>{out}), {data}, {out}};
    schedule::Stage& st = (*r.schedule)[out];
    if (cfg.get_string("vector_axis") == "lanes") {
      // Channels innermost: a vector of b channels is one contiguous read of the block.
      st.reorder({st.axis(0), st.axis(2), st.axis(3), st.axis(1)});
      if (cfg.get_string("parallel") == "outer") st.parallel(st.fuse(st.axis(0), st.axis(2)));
      if (t.float32_lanes() > 1) st.vectorize(st.split(st.axis(1), std::min(b, int64_t{t.float32_lanes()})).second);
      return r;
    }
    schedule_copy(st, cfg, st.axis(3), t.float32_lanes(), s[3]);
    return r;
  }

 protected:
  std::vector<float> convert(const std::vector<int64_t>& s, const float* in) const override {
    return activation_from_blocked(in, s[0], s[1], s[2] * s[3], s[4]);
  }
};

// One blocked layout into another (a graph-level plan changing blocks between two convs): one
// copy, where going through NCHW would be two.
class Reblock : public LayoutOp {
 public:
  explicit Reblock(ir::DataType dtype = ir::DataType::float32())
      : LayoutOp({"n", "c", "h", "w", "ib", "ob"}, {{"n", 1}, {"ib", 16}, {"ob", 16}}, dtype) {}
  std::string name() const override { return typed("layout_reblock_nchwc"); }
  std::string description() const override {
    return "out[N,C/ob,H,W,ob] = data[N,C/ib,H,W,ib] reblocked, padded channels 0";
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], ceil_div(s[1], s[4]), s[2], s[3], s[4]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    return {s[0], ceil_div(s[1], s[5]), s[2], s[3], s[5]};
  }
  space::ConfigSpace config_space(const std::vector<int64_t>& s, const codegen::Target& t) const override {
    return layout_space(true, s[5] < t.float32_lanes());
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t c = s[1], ib = s[4], ob = s[5];
    Tensor data = te::placeholder(input_shapes(s)[0], dtype_, "data");
    Tensor out = te::compute(
        output_shape(s),
        [&](const te::Indices& i) {
          Expr ch = i[1] * Expr(ob) + i[4];
          if (c % ob == 0) return data(i[0], ir::floordiv(ch, Expr(ib)), i[2], i[3], ir::floormod(ch, Expr(ib)));
          Expr inside = ir::min(ch, Expr(c - 1));
          return ir::make_select(ch < Expr(c),
                                 data(i[0], ir::floordiv(inside, Expr(ib)), i[2], i[3], ir::floormod(inside, Expr(ib))),
                                 zero());
        },
        "out", {"n", "cb", "y", "x", "l"});
    return schedule_blocked_copy(data, out, cfg, t, ob, s[3]);
  }

 protected:
  std::vector<float> convert(const std::vector<int64_t>& s, const float* in) const override {
    const auto plain = activation_from_blocked(in, s[0], s[1], s[2] * s[3], s[4]);
    return activation_to_blocked(plain.data(), s[0], s[1], s[2] * s[3], s[5]);
  }
};

class PackConvWeight : public LayoutOp {
 public:
  PackConvWeight() : LayoutOp({"k", "c", "r", "s", "ib", "ob"}, {{"ib", 16}, {"ob", 16}}) {}
  std::string name() const override { return "pack_conv_weight"; }
  std::string description() const override {
    return "out[K/ob,C/ib,R,S,ib,ob] = weight[K,C,R,S] packed for conv2d_nchwc, padding 0";
  }
  std::vector<std::vector<int64_t>> input_shapes(const std::vector<int64_t>& s) const override {
    return {{s[0], s[1], s[2], s[3]}};
  }
  std::vector<int64_t> output_shape(const std::vector<int64_t>& s) const override {
    return {ceil_div(s[0], s[5]), ceil_div(s[1], s[4]), s[2], s[3], s[4], s[5]};
  }
  space::ConfigSpace config_space(const std::vector<int64_t>&, const codegen::Target&) const override {
    return layout_space(false);
  }

  Scheduled schedule(const std::vector<int64_t>& s, const space::Config& cfg, const codegen::Target& t) const override {
    const int64_t k = s[0], c = s[1], ib = s[4], ob = s[5];
    Tensor weight = te::placeholder(input_shapes(s)[0], ir::DataType::float32(), "weight");
    Tensor out =
        te::compute(output_shape(s),
                    [&](const te::Indices& i) {
                      Expr o = i[0] * Expr(ob) + i[5], ch = i[1] * Expr(ib) + i[4];
                      Expr inside;
                      if (k % ob != 0) inside = o < Expr(k);
                      if (c % ib != 0) inside = inside.get() ? ir::logical_and(inside, ch < Expr(c)) : ch < Expr(c);
                      if (!inside.get()) return weight(o, ch, i[2], i[3]);
                      return ir::make_select(
                          inside, weight(ir::min(o, Expr(k - 1)), ir::min(ch, Expr(c - 1)), i[2], i[3]), Expr(0.0f));
                    },
                    "out", {"ko", "cb", "ry", "rx", "ci", "l"});
    Scheduled r{std::make_unique<schedule::Schedule>(std::vector<Tensor>{out}), {weight}, {out}};
    schedule::Stage& st = (*r.schedule)[out];
    schedule_copy(st, cfg, st.axis(5), t.float32_lanes(), ob);
    return r;
  }

 protected:
  std::vector<float> convert(const std::vector<int64_t>& s, const float* in) const override {
    return weight_to_packed(in, s[0], s[1], s[2] * s[3], s[4], s[5]);
  }
};

}  // namespace

void register_layout_operators(Registry& r) {
  r.add(std::make_unique<ToNchwc>());
  r.add(std::make_unique<FromNchwc>());
  r.add(std::make_unique<Reblock>());
  r.add(std::make_unique<ToNchwc>(ir::DataType::uint8()));
  r.add(std::make_unique<FromNchwc>(ir::DataType::uint8()));
  r.add(std::make_unique<Reblock>(ir::DataType::uint8()));
  r.add(std::make_unique<PackConvWeight>());
}

}  // namespace tf::ops

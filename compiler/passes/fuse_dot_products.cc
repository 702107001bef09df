// Four int8 multiply-accumulates into one int32 vector become one 4-way dot product. An int8
// template reduces over input channels in groups of four (an unrolled loop inside the register
// tile, outside the vector lanes), so after unrolling and vectorizing its micro-kernel holds, for
// each accumulator, four stores among the tile's others
//     acc[I] = acc[I] + i32(x[a + j]) * i32(w[Ramp(b + j, 4, L)])        j = 0, 1, 2, 3
// with x unsigned bytes (one value for every lane, or a Ramp of stride 4 too) and w signed bytes
// laid out four per lane. They are replaced by
//     acc[I] = dot_u8s8(acc[I], x[Ramp(a, 1, 4)], w[Ramp(b, 1, 4L)])
// which reads the same bytes contiguously and is one vpdpbusd where the target has VNNI
// (codegen/dot_product.h). A template that centres its unsigned bytes, i32(x[a + j]) - 128 in every
// step, gets dot_u8s8_centered. Integer addition is associative, so the sum is the same; anything
// that does not match stays as it was.
#include <algorithm>
#include <optional>

#include "compiler/analysis/structural_equal.h"
#include "compiler/ir/mutator.h"
#include "compiler/passes/passes.h"

namespace tf::passes {
namespace {

using ir::Expr;
using ir::Stmt;

// A byte load as a multiply-accumulate reads it: scalar (shared by all lanes) or strided by 4.
struct ByteRead {
  ir::Buffer buffer;
  Expr base;           // the index of lane 0's byte
  bool shared = true;  // one byte for every lane (a broadcast), else Ramp(base, 4, lanes)
  bool is_unsigned = false;
  bool centered = false;  // the widened byte less 128
};

// x - 128 (or x + -128, as simplify may leave it): x, else null.
Expr less_128(const Expr& e) {
  const auto* op = e.as<ir::BinaryNode>();
  int64_t c = 0;
  if (!op || !ir::is_const_int(op->b, &c)) return Expr();
  if ((op->op == ir::BinaryOp::Sub && c == 128) || (op->op == ir::BinaryOp::Add && c == -128)) return op->a;
  return Expr();
}

// The byte load under the int32 widening of one product operand, if it is one.
std::optional<ByteRead> byte_read(const Expr& operand, int lanes) {
  Expr e = operand;
  bool broadcast = false, centered = false, widened = false;
  for (;;) {
    // Centring applies to the widened byte (an 8-bit x - 128 would wrap).
    if (Expr x = less_128(e); x.get() && !centered && !widened) {
      centered = true;
      e = x;
      continue;
    }
    if (const auto* c = e.as<ir::CastNode>()) {
      // Only widenings keep the byte's value (zero-extended if unsigned, sign-extended if not).
      const ir::DataType from = c->value.type();
      if (c->type.is_float() || from.is_float() || c->type.bits <= from.bits) return std::nullopt;
      if (centered && c->type.bits < 16) return std::nullopt;
      widened = true;
      e = c->value;
      continue;
    }
    if (const auto* bc = e.as<ir::BroadcastNode>()) {
      broadcast = true;
      e = bc->value;
      continue;
    }
    break;
  }
  const auto* load = e.as<ir::LoadNode>();
  if (!load || load->type.bits != 8 || load->type.is_float()) return std::nullopt;
  ByteRead r{load->buffer, Expr(), true, load->type.is_uint(), centered};
  if (load->type.is_scalar()) {
    if (!broadcast) return std::nullopt;
    r.base = load->index;
    return r;
  }
  const auto* ramp = load->index.as<ir::RampNode>();
  int64_t stride = 0;
  if (!ramp || ramp->lanes != lanes || !ir::is_const_int(ramp->stride, &stride) || stride != 4) return std::nullopt;
  r.base = ramp->base;
  r.shared = false;
  return r;
}

// acc[I] = acc[I] + i32(u8 read) * i32(s8 read), with the reads of lane 0.
struct MultiplyAccumulate {
  const ir::StoreNode* store = nullptr;
  ByteRead x, w;  // unsigned, signed
};

std::optional<MultiplyAccumulate> multiply_accumulate(const Stmt& s) {
  const auto* store = s.as<ir::StoreNode>();
  if (!store) return std::nullopt;
  const ir::DataType t = store->value.type();
  if (!t.is_int() || t.bits != 32 || t.lanes < 2) return std::nullopt;
  const auto* add = store->value.as<ir::BinaryNode>();
  if (!add || add->op != ir::BinaryOp::Add) return std::nullopt;
  auto is_acc = [&](const Expr& e) {
    const auto* load = e.as<ir::LoadNode>();
    return load && load->buffer.get() == store->buffer.get() && analysis::structurally_equal(load->index, store->index);
  };
  Expr product = is_acc(add->a) ? add->b : is_acc(add->b) ? add->a : Expr();
  const auto* mul = product.as<ir::BinaryNode>();
  if (!mul || mul->op != ir::BinaryOp::Mul) return std::nullopt;
  auto a = byte_read(mul->a, t.lanes), b = byte_read(mul->b, t.lanes);
  if (!a || !b) return std::nullopt;
  if (!a->is_unsigned) std::swap(a, b);
  // The weights are the per-lane operand: four signed bytes per lane.
  if (!a->is_unsigned || b->is_unsigned || b->shared || b->centered) return std::nullopt;
  return MultiplyAccumulate{store, *a, *b};
}

bool offset_by(const Expr& e, const Expr& base, int64_t j) {
  int64_t d = 0;
  return e.type() == base.type() && ir::is_const_int(simplify(e - base), &d) && d == j;
}

// The four steps j = 0..3 of one dot product, as one store; null unless `steps` are exactly that.
Stmt fuse_steps(const std::vector<MultiplyAccumulate>& steps) {
  if (steps.size() != 4) return Stmt();
  const MultiplyAccumulate& first = steps.front();
  for (int64_t j = 1; j < 4; ++j) {
    const MultiplyAccumulate& m = steps[static_cast<size_t>(j)];
    if (m.x.buffer.get() != first.x.buffer.get() || m.x.shared != first.x.shared || m.x.centered != first.x.centered ||
        m.w.buffer.get() != first.w.buffer.get() || !offset_by(m.x.base, first.x.base, j) ||
        !offset_by(m.w.base, first.w.base, j)) {
      return Stmt();
    }
  }
  const ir::StoreNode* store = first.store;
  const int lanes = store->value.type().lanes;
  Expr x = ir::make_load(first.x.buffer, ir::make_ramp(first.x.base, ir::make_int(1, first.x.base.type()),
                                                       first.x.shared ? 4 : 4 * lanes));
  Expr w = ir::make_load(first.w.buffer, ir::make_ramp(first.w.base, ir::make_int(1, first.w.base.type()), 4 * lanes));
  Expr acc = ir::make_load(store->buffer, store->index);
  const ir::Intrinsic dot = first.x.centered ? ir::Intrinsic::DotU8S8Centered : ir::Intrinsic::DotU8S8;
  return ir::make_store(store->buffer, store->index, ir::make_call(dot, {acc, x, w}));
}

// A run of multiply-accumulates into one buffer, each reading that buffer only at the element it
// writes: stores to different elements commute, so the run is regrouped by element (in order of
// first appearance) and each element's steps fused four at a time. If any element's steps are not
// runs of four fusable ones, the run is left as it was.
std::vector<Stmt> fuse_run(const std::vector<Stmt>& run, const std::vector<MultiplyAccumulate>& macs) {
  std::vector<std::vector<MultiplyAccumulate>> by_element;
  for (const MultiplyAccumulate& m : macs) {
    auto same = [&](const std::vector<MultiplyAccumulate>& g) {
      return analysis::structurally_equal(g.front().store->index, m.store->index);
    };
    auto it = std::find_if(by_element.begin(), by_element.end(), same);
    if (it == by_element.end()) {
      by_element.push_back({m});
    } else {
      it->push_back(m);
    }
  }
  // An element's steps come in runs of four (more than one run when the groups of four channels
  // are unrolled too), each run one dot product after the other.
  std::vector<Stmt> fused;
  for (const auto& steps : by_element) {
    if (steps.size() % 4 != 0) return run;
    for (size_t at = 0; at < steps.size(); at += 4) {
      Stmt s = fuse_steps(std::vector<MultiplyAccumulate>(steps.begin() + static_cast<std::ptrdiff_t>(at),
                                                          steps.begin() + static_cast<std::ptrdiff_t>(at + 4)));
      if (!s.get()) return run;
      fused.push_back(s);
    }
  }
  return fused;
}

class DotProductFuser : public ir::IRMutator {
 public:
  using ir::IRMutator::mutate;

 protected:
  using ir::IRMutator::visit;
  Stmt visit(const ir::SeqNode* n, const Stmt& self) override {
    std::vector<Stmt> out;
    bool changed = false;
    for (size_t i = 0; i < n->stmts.size();) {
      // The longest run of multiply-accumulates into one buffer from here.
      std::vector<Stmt> run;
      std::vector<MultiplyAccumulate> macs;
      for (size_t k = i; k < n->stmts.size(); ++k) {
        auto m = multiply_accumulate(n->stmts[k]);
        if (!m || (!macs.empty() && m->store->buffer.get() != macs.front().store->buffer.get())) break;
        macs.push_back(*m);
        run.push_back(n->stmts[k]);
      }
      if (run.size() >= 4) {
        std::vector<Stmt> fused = fuse_run(run, macs);
        changed |= fused.size() != run.size();
        out.insert(out.end(), fused.begin(), fused.end());
        i += run.size();
        continue;
      }
      Stmt s = mutate(n->stmts[i]);
      changed |= !s.same_as(n->stmts[i]);
      out.push_back(s);
      ++i;
    }
    return changed ? ir::make_seq(std::move(out)) : self;
  }
};

}  // namespace

Stmt fuse_dot_products(const Stmt& s) { return DotProductFuser().mutate(s); }

}  // namespace tf::passes

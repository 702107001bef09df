#include "graph/passes/block_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "compiler/ops/nchwc_shape.h"
#include "compiler/ops/registry.h"
#include "graph/kernel_alternatives.h"
#include "graph/kernel_calls.h"
#include "graph/layout_solver.h"
#include "graph/tasks.h"

namespace tf::graph::passes {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kDefaultBlock = 16;
constexpr int64_t kPlain = 0;  // a value's layout when it is not blocked
// Ties go to the default block: a plan moves off 16 only for a measured gain.
constexpr double kOffDefault = 1e-9;

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// "conv2d_bias_relu" -> "_bias_relu"
std::string epilogue_of(const std::string& op) { return op.substr(std::string("conv2d").size()); }

// A blocked activation: its variable in the problem and the blocks it may take.
struct BlockedValue {
  int var;
  std::vector<int64_t> blocks;
};

// One blocked conv's cost table, and which candidate each of its entries stands for.
struct ConvEntry {
  std::string node;
  std::optional<int> in_var;  // nullopt: the input is plain
  int out_var;
  std::vector<BlockChoice> pick;  // per (in, out) entry, out fastest
};

class BlockProblem {
 public:
  BlockProblem(const Graph& g, const PlanOptions& options) : g_(g), options_(options) {}

  std::map<std::string, BlockChoice> solve() {
    for (const Node& n : g_.nodes) add_node(n);
    for (const auto& o : g_.outputs) read_plainly(o);
    if (!any_measured_) return {};
    const auto solution = problem_.solve();
    if (!solution || !std::isfinite(solution->cost)) return {};
    std::map<std::string, BlockChoice> out;
    for (const ConvEntry& e : convs_) {
      const size_t out_index = static_cast<size_t>(solution->values[static_cast<size_t>(e.out_var)]);
      const size_t in_index = e.in_var ? static_cast<size_t>(solution->values[static_cast<size_t>(*e.in_var)]) : 0;
      out[e.node] = e.pick[in_index * static_cast<size_t>(problem_.choices(e.out_var)) + out_index];
    }
    return out;
  }

 private:
  std::optional<double> measured(const ops::Workload& w) const {
    return options_.measured_seconds ? options_.measured_seconds(w) : std::nullopt;
  }

  // The fastest measured kernel of the conv `w` runs in (its algorithms), or nullopt.
  std::optional<double> kernel_seconds(const ops::Workload& w) const {
    std::optional<double> best;
    for (const ops::Workload& k : kernel_alternatives(w)) {
      if (auto s = measured(k); s && (!best || *s < *best)) best = s;
    }
    return best;
  }

  // Converting an activation of `shape` from one layout (a block, or kPlain) to another: what
  // plan_layouts places (layout_to_nchwc, layout_from_nchwc, layout_reblock_nchwc).
  double convert(const Shape& shape, int64_t from, int64_t to) const {
    if (from == to || (std::min(from, to) == kPlain && block_is_plain(std::max(from, to)))) return 0;
    const std::vector<int64_t> extents = {shape[0], shape[1], shape[2], shape[3]};
    const ops::Workload w = layout_transform_workload(extents, from, to);
    if (auto s = measured(w)) return *s;
    return static_cast<double>(2 * 4 * shape[0] * shape[1] * shape[2] * shape[3]) * kSecondsPerConvertedByte;
  }

  void read_plainly(const std::string& v) {
    const auto it = values_.find(v);
    if (it == values_.end() || !read_plain_.insert(v).second) return;
    CostTable t{{it->second.var}, {}};
    for (int64_t b : it->second.blocks) t.cost.push_back(convert(g_.value(v).shape, b, kPlain));
    problem_.add_cost(std::move(t));
  }

  int add_value(const std::string& name, std::vector<int64_t> blocks) {
    const int var = problem_.add_variable(static_cast<int>(blocks.size()));
    CostTable bias{{var}, {}};
    for (int64_t b : blocks) bias.cost.push_back(b == kDefaultBlock ? 0 : kOffDefault);
    problem_.add_cost(std::move(bias));
    values_[name] = {var, std::move(blocks)};
    return var;
  }

  void add_node(const Node& n) {
    const std::string twin = blocked_conv_twin(g_, n);
    if (!twin.empty()) return add_conv(n, twin);
    if (!n.inputs.empty() && values_.count(n.inputs[0]) && !blocked_pool_twin(g_, n).empty()) {
      values_[n.outputs.at(0)] = values_.at(n.inputs[0]);  // a blocked pool keeps its input's block
      return;
    }
    if (!n.inputs.empty() && values_.count(n.inputs[0]) && !global_pool_twin(g_, n, 1).empty()) return read_globally(n);
    for (const auto& input : n.inputs) read_plainly(input);
  }

  // A global pool reads a block that divides the channels in place (plan_layouts), any other
  // block through a conversion to NCHW.
  void read_globally(const Node& n) {
    const BlockedValue& x = values_.at(n.inputs[0]);
    const Shape& shape = g_.value(n.inputs[0]).shape;
    CostTable t{{x.var}, {}};
    for (int64_t b : x.blocks) t.cost.push_back(global_pool_twin(g_, n, b).empty() ? convert(shape, b, kPlain) : 0.0);
    problem_.add_cost(std::move(t));
  }

  void add_conv(const Node& n, const std::string& twin) {
    const ops::Conv2dShape s = conv2d_shape(g_, n);
    const bool depthwise = starts_with(twin, "depthwise");
    const auto in = values_.find(n.inputs[0]);
    const bool blocked_input = in != values_.end();
    const std::vector<int64_t> in_blocks = blocked_input ? in->second.blocks : std::vector<int64_t>{kPlain};
    // The workload plan_layouts would give it alone: its candidates are that one's block variants.
    const ops::Workload alone =
        depthwise ? ops::Workload{twin, ops::DepthwiseNchwcShape{s, kDefaultBlock}.to_vector()}
                  : ops::Workload{twin, ops::Conv2dNchwcShape{s, blocked_input ? kDefaultBlock : plain_input_block(s.c),
                                                              kDefaultBlock}
                                            .to_vector()};
    struct Candidate {
      BlockChoice blocks;
      double seconds;
    };
    std::vector<Candidate> candidates;
    std::vector<int64_t> out_blocks;
    for (const ops::Workload& w : block_alternatives(alone)) {
      const BlockChoice c = depthwise ? BlockChoice{w.shape.back(), w.shape.back()}
                                      : BlockChoice{w.shape[w.shape.size() - 2], w.shape.back()};
      if (std::find(out_blocks.begin(), out_blocks.end(), c.ob) == out_blocks.end()) out_blocks.push_back(c.ob);
      if (const auto t = kernel_seconds(w)) candidates.push_back({c, *t});
    }
    if (candidates.empty()) {
      // Nothing measured: as plan_layouts alone would run it (16 out; a blocked input read as it is).
      for (int64_t ib : in_blocks) {
        const int64_t read_as = depthwise ? kDefaultBlock : ib == kPlain ? plain_input_block(s.c) : ib;
        candidates.push_back({{read_as, kDefaultBlock}, 0.0});
      }
    } else {
      any_measured_ = true;
    }
    std::sort(out_blocks.begin(), out_blocks.end());
    const Shape& in_shape = g_.value(n.inputs[0]).shape;
    ConvEntry e{n.name, blocked_input ? std::optional<int>(in->second.var) : std::nullopt, 0, {}};
    CostTable t;
    for (int64_t from : in_blocks) {
      for (int64_t ob : out_blocks) {
        double best = kInf;
        BlockChoice pick{from == kPlain ? plain_input_block(s.c) : from, kDefaultBlock};
        for (const Candidate& c : candidates) {
          if (c.blocks.ob != ob) continue;
          const double cost = c.seconds + convert(in_shape, from, c.blocks.ib);
          if (cost < best) best = cost, pick = c.blocks;
        }
        t.cost.push_back(best);
        e.pick.push_back(pick);
      }
    }
    e.out_var = add_value(n.outputs.at(0), out_blocks);
    t.vars = e.in_var ? std::vector<int>{*e.in_var, e.out_var} : std::vector<int>{e.out_var};
    problem_.add_cost(std::move(t));
    if (n.inputs.size() > 3) add_residual(n.inputs[3], n.outputs.at(0));
    convs_.push_back(std::move(e));
  }

  // A residual is read in the block the conv writes.
  void add_residual(const std::string& r, const std::string& y) {
    const BlockedValue& out = values_.at(y);
    const Shape& shape = g_.value(y).shape;
    const auto it = values_.find(r);
    if (it == values_.end() || it->second.var == out.var) {
      CostTable t{{out.var}, {}};
      for (int64_t b : out.blocks) t.cost.push_back(it == values_.end() ? convert(shape, kPlain, b) : 0.0);
      problem_.add_cost(std::move(t));
      return;
    }
    CostTable t{{it->second.var, out.var}, {}};
    for (int64_t from : it->second.blocks) {
      for (int64_t to : out.blocks) t.cost.push_back(convert(shape, from, to));
    }
    problem_.add_cost(std::move(t));
  }

  const Graph& g_;
  const PlanOptions& options_;
  ChoiceProblem problem_;
  std::map<std::string, BlockedValue> values_;
  std::set<std::string> read_plain_;
  std::vector<ConvEntry> convs_;
  bool any_measured_ = false;
};

}  // namespace

std::string blocked_conv_twin(const Graph& g, const Node& n) {
  if (!starts_with(n.op, "conv2d")) return "";
  const bool constant_weights =
      n.inputs.size() > 1 && g.constant(n.inputs[1]) && (n.inputs.size() < 3 || g.constant(n.inputs[2]));
  if (!constant_weights) return "";
  const ops::Conv2dShape s = conv2d_shape(g, n);
  const bool depthwise = s.depthwise() && (s.k == s.c || s.k == 2 * s.c);  // the multipliers depthwise_nchwc takes
  const std::string twin = (s.groups == 1 ? "conv2d_nchwc" : depthwise ? "depthwise_nchwc" : "") + epilogue_of(n.op);
  if (twin == epilogue_of(n.op)) return "";
  return ops::has_operator(twin) ? twin : "";
}

std::string global_pool_twin(const Graph& g, const Node& n, int64_t b) {
  if (n.inputs.empty() || g.value(n.inputs[0]).shape.size() != 4 || g.value(n.inputs[0]).shape[1] % b != 0) return "";
  return n.op == "GlobalAveragePool" ? "global_avg_pool2d_nchwc"
         : n.op == "GlobalMaxPool"   ? "global_max_pool2d_nchwc"
                                     : "";
}

int64_t plain_input_block(int64_t channels) { return channels < kDefaultBlock ? 1 : kDefaultBlock; }

std::string blocked_pool_twin(const Graph& g, const Node& n) {
  if ((n.op != "MaxPool" && n.op != "AveragePool") || n.inputs.empty()) return "";
  const NodeLowering lowering = lower_node(g, n);
  if (!lowering.call) return "";
  const std::string plain = lowering.call->op->name();
  if (plain == "max_pool2d_u8") return "max_pool2d_nchwc_u8";
  return plain == "max_pool2d" || plain == "avg_pool2d" ? plain + "_nchwc" : "";
}

std::map<std::string, BlockChoice> plan_blocks(const Graph& g, const PlanOptions& options) {
  if (!options.measured_seconds || !options.graph_layouts) return {};
  return BlockProblem(g, options).solve();
}

}  // namespace tf::graph::passes

#include "graph/kernel_alternatives.h"

#include <algorithm>
#include <optional>

#include "compiler/ops/conv2d_shape.h"
#include "compiler/ops/nchwc_shape.h"
#include "compiler/ops/registry.h"

namespace tf::graph {
namespace {

const std::string kDirect = "conv2d_nchwc", kWinograd = "conv2d_winograd_nchwc", kDepthwise = "depthwise_nchwc";
const std::vector<int64_t> kBlocks = {8, 16, 32};
// F(2x2, 3x3) and F(4x4, 3x3): 2.25x and 4x fewer multiplies. F(6x6, 3x3) loses about two decimal
// digits more to rounding than the model agreement allows margin for.
const std::vector<int64_t> kWinogradTiles = {2, 4};

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The direct blocked conv's extents of a member of the family, or nullopt for another op.
std::optional<ops::Workload> direct_of(const ops::Workload& w) {
  if (starts_with(w.op, kWinograd)) {
    return ops::Workload{kDirect + w.op.substr(kWinograd.size()),
                         std::vector<int64_t>(w.shape.begin(), w.shape.end() - 1)};
  }
  if (starts_with(w.op, kDirect)) return w;
  return std::nullopt;
}

// Below 14x14 outputs no Winograd kernel came near the direct one (bench/results/conv2d-winograd.json:
// 0.63x at 7x7x512, the transformed weight read for a few tiles): not worth a job's trials.
bool winograd_fits(const ops::Conv2dShape& c) {
  return c.r == 3 && c.s == 3 && c.stride == 1 && c.dilation == 1 && c.groups == 1 && c.oh() * c.ow() >= 14 * 14;
}

}  // namespace

std::vector<ops::Workload> kernel_alternatives(const ops::Workload& w) {
  const auto direct = direct_of(w);
  if (!direct) return {w};
  const std::string winograd = kWinograd + direct->op.substr(kDirect.size());
  if (!ops::has_operator(winograd) || !winograd_fits(ops::Conv2dNchwcShape::from_vector(direct->shape).conv))
    return {w};
  std::vector<ops::Workload> all = {*direct};
  for (int64_t m : kWinogradTiles) {
    ops::Workload alt{winograd, direct->shape};
    alt.shape.push_back(m);
    all.push_back(std::move(alt));
  }
  return all;
}

std::vector<int64_t> channel_blocks(int64_t channels) {
  std::vector<int64_t> out;
  for (int64_t b : kBlocks) {
    if (b == 16 || (b <= channels && channels % b == 0)) out.push_back(b);
  }
  return out;
}

std::vector<ops::Workload> block_alternatives(const ops::Workload& w) {
  std::vector<ops::Workload> all;
  if (starts_with(w.op, kDepthwise)) {
    ops::DepthwiseNchwcShape sh = ops::DepthwiseNchwcShape::from_vector(w.shape);
    for (int64_t b : channel_blocks(sh.conv.c)) {
      sh.b = b;
      all.push_back({w.op, sh.to_vector()});
    }
    return all;
  }
  const auto direct = direct_of(w);
  if (!direct) return {w};
  ops::Conv2dNchwcShape sh = ops::Conv2dNchwcShape::from_vector(direct->shape);
  const bool fixed_input = std::find(kBlocks.begin(), kBlocks.end(), sh.ib) == kBlocks.end();
  const std::vector<int64_t> ins = channel_blocks(sh.conv.c);
  for (int64_t b : channel_blocks(sh.conv.k)) {
    if (!fixed_input && std::find(ins.begin(), ins.end(), b) == ins.end()) continue;
    if (!fixed_input) sh.ib = b;
    sh.ob = b;
    all.push_back({direct->op, sh.to_vector()});
  }
  return all;
}

std::vector<ops::Workload> kernel_alternatives_with_blocks(const ops::Workload& w) {
  std::vector<ops::Workload> all;
  for (const ops::Workload& b : block_alternatives(w)) {
    for (ops::Workload& k : kernel_alternatives(b)) all.push_back(std::move(k));
  }
  return all;
}

std::vector<ops::Workload> layout_transform_workloads(const ops::Workload& w) {
  const bool depthwise = starts_with(w.op, kDepthwise);
  if (!depthwise && !direct_of(w)) return {};
  const ops::Conv2dShape c = depthwise ? ops::DepthwiseNchwcShape::from_vector(w.shape).conv
                                       : ops::Conv2dNchwcShape::from_vector(direct_of(w)->shape).conv;
  std::vector<ops::Workload> all;
  const auto every_pair = [&all](const std::vector<int64_t>& nchw) {
    std::vector<int64_t> layouts = channel_blocks(nchw[1]);
    layouts.insert(layouts.begin(), 0);
    for (int64_t from : layouts) {
      for (int64_t to : layouts) {
        if (from != to) all.push_back(layout_transform_workload(nchw, from, to));
      }
    }
  };
  every_pair({c.n, c.c, c.h, c.w});
  every_pair({c.n, c.k, c.oh(), c.ow()});
  return all;
}

ops::Workload layout_transform_workload(const std::vector<int64_t>& nchw, int64_t from, int64_t to) {
  std::vector<int64_t> extents = nchw;
  if (from == 0) {
    extents.push_back(to);
    return {"layout_to_nchwc", extents};
  }
  extents.push_back(from);
  if (to == 0) return {"layout_from_nchwc", extents};
  extents.push_back(to);
  return {"layout_reblock_nchwc", extents};
}

size_t default_alternative(const std::vector<ops::Workload>& alternatives, int vector_registers) {
  if (alternatives.size() < 2) return 0;
  // Default configs on ResNet-18's layers (bench/results/conv2d-winograd.json, 1 thread, AVX-512):
  // F(4x4) 2.5x the direct kernel at 56x56 and 28x28, F(2x2) 1.8x at 14x14, both behind it at 7x7,
  // where the transformed weight outweighs the few tiles it serves. With AVX2's 16 registers F(4x4)
  // wins at 14x14 too (256 channels, default configs, 1 / 2 threads: 1.7-2.2 / 1.1-1.4 ms against
  // the direct kernel's 2.9-3.3 / 1.6-1.7).
  const ops::Conv2dShape c = ops::Conv2dNchwcShape::from_vector(alternatives[0].shape).conv;
  const int64_t pixels = c.oh() * c.ow();
  const int64_t m = pixels >= 28 * 28 ? 4 : pixels >= 14 * 14 ? (vector_registers >= 32 ? 2 : 4) : 0;
  for (size_t i = 1; i < alternatives.size(); ++i) {
    if (alternatives[i].shape.back() == m) return i;
  }
  return 0;
}

size_t choose_alternative(const std::vector<ops::Workload>& alternatives,
                          const std::function<std::optional<double>(const ops::Workload&)>& measured_seconds,
                          int vector_registers) {
  size_t pick = default_alternative(alternatives, vector_registers);
  std::optional<double> fastest;
  for (size_t i = 0; measured_seconds && i < alternatives.size(); ++i) {
    const auto s = measured_seconds(alternatives[i]);
    if (s && (!fastest || *s < *fastest)) pick = i, fastest = s;
  }
  return pick;
}

}  // namespace tf::graph

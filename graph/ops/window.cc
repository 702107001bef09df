#include "graph/ops/window.h"

#include <algorithm>

#include "graph/ops/rules.h"

namespace tf::graph::window {
namespace {

using rules::ints_text;

bool all_equal(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v.front(); });
}

}  // namespace

std::optional<std::string> check(const Node& n) {
  const bool conv = n.op == "Conv";
  if (n.has("auto_pad")) {
    const std::string v = n.attr_string("auto_pad", "NOTSET");
    const bool same = v == "SAME_UPPER" || v == "SAME_LOWER";
    if (v != "NOTSET" && v != "VALID" && !(same && conv)) return "attribute 'auto_pad' = '" + v + "' is not supported";
  }
  const auto k = n.attr_ints("kernel_shape", {});
  if (n.has("kernel_shape") && k.size() != 2) return "attribute 'kernel_shape' = " + ints_text(k) + ": only 2-D windows are supported";
  for (int64_t x : k) {
    if (x <= 0) return "attribute 'kernel_shape' = " + ints_text(k) + " has a non-positive extent";
  }
  const auto strides = n.attr_ints("strides", {});
  if (!strides.empty() && (strides.size() != 2 || strides[0] <= 0 || strides[1] <= 0)) return "attribute 'strides' = " + ints_text(strides) + " is not 2 positive values";
  if (conv && !all_equal(strides)) return "attribute 'strides' = " + ints_text(strides) + ": tunefarm's conv2d takes one stride for both axes";
  const auto dil = n.attr_ints("dilations", {});
  if (!dil.empty() && (dil.size() != 2 || dil[0] <= 0 || !all_equal(dil))) return "attribute 'dilations' = " + ints_text(dil) + ": one positive dilation for both axes is supported";
  if (!conv && !dil.empty() && dil[0] != 1) return "attribute 'dilations' = " + ints_text(dil) + ": dilated pooling is not supported";
  const auto pads = n.attr_ints("pads", {});
  if (!pads.empty() && pads.size() != 4) return "attribute 'pads' = " + ints_text(pads) + " must have 4 values";
  for (int64_t x : pads) {
    if (x < 0) return "attribute 'pads' = " + ints_text(pads) + " has a negative pad";
  }
  if (!conv && !n.has("kernel_shape")) return "attribute 'kernel_shape' is missing";
  return std::nullopt;
}

void normalize(Graph& g, Node& n) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() != 4) rules::fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; only NCHW (rank 4) is supported");
  if (n.op == "Conv") {
    if (!g.input_present(n, 1)) rules::fail(n, "the weight (input 1) is missing");
    const Value& w = g.input_of(n, 1);
    if (w.shape.size() != 4) rules::fail(n, "weight '" + w.name + "' has shape " + shape_str(w.shape) + "; only 2-D convolutions are supported");
    const std::vector<int64_t> k = {w.shape[2], w.shape[3]};
    if (n.has("kernel_shape") && n.attr_ints("kernel_shape", {}) != k) {
      rules::fail(n, "attribute 'kernel_shape' = " + ints_text(n.attr_ints("kernel_shape", {})) + " differs from the weight " + shape_str(w.shape));
    }
    n.attrs["kernel_shape"] = k;
    n.attrs["group"] = n.attr_int("group", 1);
  }
  n.attrs["strides"] = n.attr_ints("strides", {1, 1});
  n.attrs["dilations"] = n.attr_ints("dilations", {1, 1});
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  n.attrs.erase("auto_pad");
  if (auto_pad == "VALID") {
    n.attrs["pads"] = std::vector<int64_t>{0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {});
    std::vector<int64_t> pads(4);
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t in = x.shape[2 + axis], out = (in + s[axis] - 1) / s[axis];
      const int64_t total = std::max<int64_t>(0, (out - 1) * s[axis] + d[axis] * (k[axis] - 1) + 1 - in);
      const int64_t small = total / 2, large = total - small;
      pads[axis] = auto_pad == "SAME_UPPER" ? small : large;
      pads[axis + 2] = auto_pad == "SAME_UPPER" ? large : small;
    }
    n.attrs["pads"] = pads;
  } else {
    n.attrs["pads"] = n.attr_ints("pads", {0, 0, 0, 0});
  }
}

}  // namespace tf::graph::window

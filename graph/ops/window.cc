#include "graph/ops/window.h"

#include <algorithm>

#include "graph/ops/rules.h"

namespace tf::graph::window {
namespace {

using rules::fail;
using rules::ints_text;

bool all_equal(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v.front(); });
}

// The window's dimensions as its attributes say (0: none says): each attribute must agree.
std::optional<std::string> window_dims(const Node& n, size_t* dims) {
  *dims = 0;
  const std::pair<const char*, size_t> per_axis[] = {
      {"kernel_shape", 1}, {"strides", 1}, {"dilations", 1}, {"pads", 2}, {"output_padding", 1}};
  for (const auto& [attr, values_per_axis] : per_axis) {
    if (!n.has(attr)) continue;
    const auto v = n.attr_ints(attr, {});
    if (v.size() % values_per_axis != 0)
      return "attribute '" + std::string(attr) + "' = " + ints_text(v) + " has an odd number of values";
    const size_t d = v.size() / values_per_axis;
    if (*dims == 0) *dims = d;
    if (d != *dims)
      return "attribute '" + std::string(attr) + "' = " + ints_text(v) + " does not have " + std::to_string(*dims) +
             " axes as the others";
  }
  if (*dims > 3) return "a " + std::to_string(*dims) + "-D window is not supported (1-D, 2-D and 3-D)";
  return std::nullopt;
}

std::optional<std::string> positive(const Node& n, const char* attr) {
  for (int64_t x : n.attr_ints(attr, {})) {
    if (x <= 0)
      return "attribute '" + std::string(attr) + "' = " + ints_text(n.attr_ints(attr, {})) +
             " has a non-positive value";
  }
  return std::nullopt;
}

std::optional<std::string> non_negative(const Node& n, const char* attr) {
  for (int64_t x : n.attr_ints(attr, {})) {
    if (x < 0)
      return "attribute '" + std::string(attr) + "' = " + ints_text(n.attr_ints(attr, {})) + " has a negative value";
  }
  return std::nullopt;
}

// The 1-D attributes over a unit first axis. The first axis's stride and dilation are free (one
// row, a kernel of height 1): the kernels that take one value for both axes get the second's.
void lift_attributes(Node& n, Kind kind) {
  auto lift = [&](const char* attr, size_t count, auto make) {
    if (!n.has(attr)) return;
    const auto v = n.attr_ints(attr, {});
    if (v.size() != count)
      fail(n, "attribute '" + std::string(attr) + "' = " + ints_text(v) + " is not 1-D, as the input is");
    n.attrs[attr] = make(v);
  };
  using V = std::vector<int64_t>;
  lift("kernel_shape", 1, [](const V& v) { return V{1, v[0]}; });
  lift("strides", 1, [&](const V& v) { return kind == Kind::ConvTranspose ? V{1, v[0]} : V{v[0], v[0]}; });
  lift("dilations", 1, [&](const V& v) { return kind == Kind::Conv ? V{v[0], v[0]} : V{1, v[0]}; });
  lift("pads", 2, [](const V& v) { return V{0, v[0], 0, v[1]}; });
  lift("output_padding", 1, [](const V& v) { return V{0, v[0]}; });
  if (n.has("output_shape")) {
    const auto v = n.attr_ints("output_shape", {});
    if (v.size() == 1)
      n.attrs["output_shape"] = V{1, v[0]};
    else if (v.size() == 3)
      n.attrs["output_shape"] = V{v[0], v[1], 1, v[2]};
    else
      fail(n, "attribute 'output_shape' = " + ints_text(v) + " is not 1-D, as the input is");
  }
}

// `value` of `shape` with a unit extent inserted before its last one; the new value's shape is set
// at once, since the normalization after it reads it.
Node unit_height(Graph& g, const std::string& value, Shape shape, const std::string& stem) {
  shape.insert(shape.end() - 1, 1);
  const std::string target =
      rules::add_constant(g, stem + "_shape", Tensor::ints({static_cast<int64_t>(shape.size())}, shape));
  Node h = rules::helper_node(g, "Reshape", {value, target}, stem);
  g.value(h.outputs[0]).shape = shape;
  return h;
}

}  // namespace

std::optional<std::string> check(const Node& n, Kind kind) {
  if (n.has("auto_pad")) {
    const std::string v = n.attr_string("auto_pad", "NOTSET");
    if (v != "NOTSET" && v != "VALID" && v != "SAME_UPPER" && v != "SAME_LOWER")
      return "attribute 'auto_pad' = '" + v + "' is not supported";
  }
  size_t dims = 0;
  if (auto why = window_dims(n, &dims)) return why;
  for (const char* attr : {"kernel_shape", "strides", "dilations"}) {
    if (auto why = positive(n, attr)) return why;
  }
  for (const char* attr : {"pads", "output_padding"}) {
    if (auto why = non_negative(n, attr)) return why;
  }
  const auto strides = n.attr_ints("strides", {}), dil = n.attr_ints("dilations", {});
  // conv3d, conv3d_transpose and the 3-D pools take a stride and dilation per axis.
  if (dims == 3) return std::nullopt;
  if (kind == Kind::Conv && !all_equal(strides))
    return "attribute 'strides' = " + ints_text(strides) + ": tunefarm's conv2d takes one stride for both axes";
  if (kind == Kind::Conv && !all_equal(dil))
    return "attribute 'dilations' = " + ints_text(dil) + ": one dilation for both axes is supported";
  if (kind == Kind::Pool && !n.has("kernel_shape")) return "attribute 'kernel_shape' is missing";
  return std::nullopt;
}

std::vector<Node> as_2d(Graph& g, Node n, Kind kind, const std::function<void(Graph&, Node&)>& normalize_2d) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() == 4 || x.shape.size() == 5) {
    normalize_2d(g, n);
    return {std::move(n)};
  }
  if (x.shape.size() != 3) {
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) +
                "; 1-D (rank 3), 2-D (rank 4) and 3-D (rank 5) windows are supported");
  }
  lift_attributes(n, kind);
  std::vector<Node> nodes;
  nodes.push_back(unit_height(g, n.inputs[0], x.shape, n.name + "_2d"));
  n.inputs[0] = nodes.back().outputs[0];
  if (kind != Kind::Pool && g.input_present(n, 1)) {
    const Value& w = g.input_of(n, 1);
    rules::require_rank(n, w, 3, "weight");
    nodes.push_back(unit_height(g, n.inputs[1], w.shape, n.name + "_weight_2d"));
    n.inputs[1] = nodes.back().outputs[0];
  }
  const std::string out = n.outputs.at(0);
  n.outputs[0] = g.unique_name(out + "_2d");
  g.set_value(Value{n.outputs[0], DType::Float32, {}, nullptr});
  normalize_2d(g, n);
  // [N, C, 1, L'] back to [N, C, L']: copy the first two extents, fold the last two.
  const std::string target = rules::add_constant(g, out + "_1d_shape", Tensor::ints({3}, {0, 0, -1}));
  Node back = rules::helper_node(g, "Reshape", {n.outputs[0], target}, out + "_1d");
  back.outputs = {out};
  nodes.push_back(std::move(n));
  nodes.push_back(std::move(back));
  return nodes;
}

std::vector<int64_t> normalize_kernel_and_group(Node& n, const Value& w) {
  std::vector<int64_t> k(w.shape.begin() + 2, w.shape.end());
  if (n.has("kernel_shape") && n.attr_ints("kernel_shape", {}) != k) {
    fail(n, "attribute 'kernel_shape' = " + ints_text(n.attr_ints("kernel_shape", {})) + " differs from the weight " +
                shape_str(w.shape));
  }
  n.attrs["kernel_shape"] = k;
  n.attrs["group"] = n.attr_int("group", 1);
  return k;
}

void normalize(Graph& g, Node& n) {
  const Value& x = rules::in(g, n, 0);
  if (x.shape.size() != 4 && x.shape.size() != 5) {
    fail(n, "input '" + x.name + "' has shape " + shape_str(x.shape) + "; rank 4 or 5 is required");
  }
  const size_t axes = x.shape.size() - 2;
  if (n.op == "Conv") {
    if (!g.input_present(n, 1)) fail(n, "the weight (input 1) is missing");
    const Value& w = g.input_of(n, 1);
    if (w.shape.size() != x.shape.size()) {
      fail(n, "weight '" + w.name + "' has shape " + shape_str(w.shape) + "; it must have the input's rank " +
                  std::to_string(x.shape.size()));
    }
    normalize_kernel_and_group(n, w);
  }
  const std::vector<int64_t> ones(axes, 1), zeros(2 * axes, 0);
  n.attrs["strides"] = n.attr_ints("strides", ones);
  n.attrs["dilations"] = n.attr_ints("dilations", ones);
  for (const char* attr : {"kernel_shape", "strides", "dilations"}) {
    if (n.attr_ints(attr, {}).size() != axes) {
      fail(n, "attribute '" + std::string(attr) + "' = " + ints_text(n.attr_ints(attr, {})) +
                  " does not have the input's " + std::to_string(axes) + " spatial axes");
    }
  }
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  n.attrs.erase("auto_pad");
  if (auto_pad == "VALID") {
    n.attrs["pads"] = zeros;
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const auto k = n.attr_ints("kernel_shape", {}), s = n.attr_ints("strides", {}), d = n.attr_ints("dilations", {});
    std::vector<int64_t> pads(2 * axes);
    for (size_t axis = 0; axis < axes; ++axis) {
      const int64_t in = x.shape[2 + axis], out = (in + s[axis] - 1) / s[axis];
      const int64_t total = std::max<int64_t>(0, (out - 1) * s[axis] + d[axis] * (k[axis] - 1) + 1 - in);
      const int64_t small = total / 2, large = total - small;
      pads[axis] = auto_pad == "SAME_UPPER" ? small : large;
      pads[axis + axes] = auto_pad == "SAME_UPPER" ? large : small;
    }
    n.attrs["pads"] = pads;
  } else {
    n.attrs["pads"] = n.attr_ints("pads", zeros);
    if (n.attr_ints("pads", {}).size() != 2 * axes) {
      fail(n, "attribute 'pads' = " + ints_text(n.attr_ints("pads", {})) +
                  " does not have two values per spatial axis (" + std::to_string(axes) + ")");
    }
  }
}

std::map<std::string, int64_t> named_3d(const Shape& x, const std::vector<int64_t>& kernel,
                                        const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                                        const std::vector<int64_t>& pads) {
  static const char* axis[3] = {"d", "h", "w"};
  static const char* begin[3] = {"pad_front", "pad_top", "pad_left"};
  static const char* end[3] = {"pad_back", "pad_bottom", "pad_right"};
  std::map<std::string, int64_t> e = {{"n", x.at(0)}, {"c", x.at(1)}};
  for (size_t a = 0; a < 3; ++a) {
    e[axis[a]] = x.at(2 + a);
    e[std::string("k") + axis[a]] = kernel.at(a);
    e[std::string("stride_") + axis[a]] = strides.at(a);
    e[std::string("dilation_") + axis[a]] = dilations.at(a);
    e[begin[a]] = pads.at(a);
    e[end[a]] = pads.at(3 + a);
  }
  return e;
}

}  // namespace tf::graph::window

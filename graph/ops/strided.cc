#include "graph/ops/strided.h"

#include <algorithm>
#include <cmath>

#include "graph/ops/lowering.h"
#include "graph/ops/rules.h"

namespace tf::graph::strided {
namespace {

constexpr size_t kMaxRank = 6;  // strided_copy's

// An index outside [0, d) as the mode maps it (Constant: -1, the pad value); as the kernel does.
int64_t map_index(int64_t i, int64_t d, Mode mode) {
  if (i >= 0 && i < d) return i;
  switch (mode) {
    case Mode::Constant: return -1;
    case Mode::Reflect: {
      if (d == 1) return 0;
      const int64_t p = 2 * (d - 1), m = ((i % p) + p) % p;
      return m < d ? m : p - m;
    }
    case Mode::Wrap: return ((i % d) + d) % d;
    default: return std::clamp<int64_t>(i, 0, d - 1);
  }
}

bool inside(const Axes& a, size_t k) {
  const int64_t last = a.starts[k] + a.steps[k] * (a.out[k] - 1);
  return a.starts[k] >= 0 && a.starts[k] < a.in[k] && last >= 0 && last < a.in[k];
}

}  // namespace

Tensor read(const Node& n, const Tensor& x, const Axes& a, Mode mode, double pad) {
  const size_t rank = a.out.size();
  if (element_count(a.in) != x.size())
    rules::fail(n, "reads " + shape_str(a.in) + " from a tensor of " + shape_str(x.shape));
  Tensor t;
  t.dtype = x.dtype;
  t.shape = a.out;
  const int64_t total = element_count(a.out);
  if (total == 0) return t;
  if (element_count(a.in) == 0) rules::fail(n, "reads elements of an empty tensor");
  std::vector<int64_t> stride(rank, 1);
  for (size_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * a.in[k];
  std::vector<int64_t> j(rank, 0);
  for (int64_t f = 0; f < total; ++f) {
    int64_t from = 0;
    bool outside = false;
    for (size_t k = 0; k < rank; ++k) {
      const int64_t i = map_index(a.starts[k] + a.steps[k] * j[k], a.in[k], mode);
      if (i < 0 && mode == Mode::None) rules::fail(n, "reads outside its input on axis " + std::to_string(k));
      outside |= i < 0;
      from += std::max<int64_t>(i, 0) * stride[k];
    }
    if (outside)
      t.append_value(pad);
    else
      t.append(x, from);
    for (size_t k = rank; k-- > 0 && ++j[k] == a.out[k];) j[k] = 0;
  }
  return t;
}

NodeLowering lower(const Graph& g, const Node& n, const Axes& a, Mode mode, const std::string& pad_value) {
  const Value& x = g.input_of(n, 0);
  if (x.dtype != DType::Float32) {
    rules::fail(n, "input '" + x.name + "' is " + std::string(dtype_name(x.dtype)) +
                       "; the strided_copy kernel copies float32 (constants of any type fold)");
  }
  const size_t rank = a.out.size();
  if (rank == 0 || rank > kMaxRank) rules::fail(n, "rank " + std::to_string(rank) + " is not supported (1 to 6)");
  bool all_inside = true, identity = true;
  for (size_t k = 0; k < rank; ++k) {
    all_inside &= inside(a, k);
    identity &= a.in[k] == a.out[k] && a.starts[k] == 0 && a.steps[k] == 1;
  }
  if (identity) return lowering::alias(n.inputs.at(0));
  if (all_inside) mode = Mode::None;  // nothing to pad: the kernel takes no value then
  lowering::Named e = {{"rank", static_cast<int64_t>(rank)}, {"mode", static_cast<int64_t>(mode)}};
  for (size_t k = 0; k < rank; ++k) {
    const std::string i = std::to_string(k);
    e["d" + i] = a.in[k];
    e["o" + i] = a.out[k];
    e["s" + i] = a.starts[k];
    e["t" + i] = a.steps[k];
  }
  std::vector<std::string> args = {n.inputs.at(0)};
  if (mode == Mode::Constant) {
    if (pad_value.empty()) rules::fail(n, "constant padding has no value");
    if (g.value(pad_value).dtype != DType::Float32) rules::fail(n, "the pad value '" + pad_value + "' must be float32");
    args.push_back(pad_value);
  }
  return lowering::call(lowering::named_call(n, "strided_copy", e, lowering::with_output(args, n)));
}

void refuse_empty_output(const Node& n, const Shape& out) {
  if (element_count(out) == 0)
    rules::fail(n, "output " + shape_str(out) + " has no elements; a compiled model holds no empty tensors");
}

}  // namespace tf::graph::strided

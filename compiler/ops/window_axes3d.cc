#include "compiler/ops/window_axes3d.h"

namespace tf::ops {
namespace {

constexpr const char* kAxis[3] = {"d", "h", "w"};
constexpr const char* kPadBegin[3] = {"pad_front", "pad_top", "pad_left"};
constexpr const char* kPadEnd[3] = {"pad_back", "pad_bottom", "pad_right"};

std::string axis_name(const char* field, int a) { return std::string(field) + "_" + kAxis[a]; }

// ",name=v" for one value when the three agree, else ",name_d=..,name_h=..,name_w=.."; nothing
// when they all equal the default.
std::string folded(const std::string& name, const std::array<int64_t, 3>& v, int64_t fallback) {
  if (v[0] == v[1] && v[0] == v[2]) return v[0] == fallback ? "" : "," + name + "=" + std::to_string(v[0]);
  std::string t;
  for (int a = 0; a < 3; ++a) t += "," + axis_name(name.c_str(), a) + "=" + std::to_string(v[a]);
  return t;
}

}  // namespace

const std::vector<std::string>& window3d_in_names() {
  static const std::vector<std::string> n = {"d", "h", "w"};
  return n;
}

const std::vector<std::string>& window3d_kernel_names() {
  static const std::vector<std::string> n = {"kd", "kh", "kw"};
  return n;
}

const std::vector<std::string>& window3d_rest_names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v;
    for (const char* field : {"stride", "dilation"}) {
      for (int a = 0; a < 3; ++a) v.push_back(axis_name(field, a));
    }
    for (const char* p : kPadBegin) v.push_back(p);
    for (const char* p : kPadEnd) v.push_back(p);
    return v;
  }();
  return n;
}

WindowAxes3d window3d_from_vector(const std::vector<int64_t>& v, size_t in_at, size_t kernel_at, size_t rest_at) {
  WindowAxes3d ax;
  for (size_t a = 0; a < 3; ++a) {
    ax[a].in = v.at(in_at + a);
    ax[a].kernel = v.at(kernel_at + a);
    ax[a].stride = v.at(rest_at + a);
    ax[a].dilation = v.at(rest_at + 3 + a);
    ax[a].pad_begin = v.at(rest_at + 6 + a);
    ax[a].pad_end = v.at(rest_at + 9 + a);
  }
  return ax;
}

std::vector<int64_t> window3d_in(const WindowAxes3d& a) { return {a[0].in, a[1].in, a[2].in}; }
std::vector<int64_t> window3d_kernel(const WindowAxes3d& a) { return {a[0].kernel, a[1].kernel, a[2].kernel}; }

std::vector<int64_t> window3d_rest(const WindowAxes3d& a) {
  std::vector<int64_t> v;
  for (const auto& x : a) v.push_back(x.stride);
  for (const auto& x : a) v.push_back(x.dilation);
  for (const auto& x : a) v.push_back(x.pad_begin);
  for (const auto& x : a) v.push_back(x.pad_end);
  return v;
}

std::vector<std::string> window3d_shorthands() { return {"stride", "dilation", "pad"}; }

WindowAxes3d window3d_from_named(const NamedExtents& e) {
  WindowAxes3d ax;
  const int64_t stride = e.get("stride", 1), dilation = e.get("dilation", 1), pad = e.get("pad", 0);
  for (int a = 0; a < 3; ++a) {
    ax[a].in = e.get(kAxis[a], std::nullopt);
    ax[a].kernel = e.get(std::string("k") + kAxis[a], std::nullopt);
    ax[a].stride = e.get(axis_name("stride", a), stride);
    ax[a].dilation = e.get(axis_name("dilation", a), dilation);
    ax[a].pad_begin = e.get(kPadBegin[a], pad);
    ax[a].pad_end = e.get(kPadEnd[a], pad);
  }
  return ax;
}

void check_window3d(const WindowAxes3d& ax, const FailField& fail) {
  for (int a = 0; a < 3; ++a) {
    const std::string in = kAxis[a], k = std::string("k") + kAxis[a];
    const std::string stride = axis_name("stride", a), dilation = axis_name("dilation", a);
    check_positive_extents({{in.c_str(), ax[a].in},
                            {k.c_str(), ax[a].kernel},
                            {stride.c_str(), ax[a].stride},
                            {dilation.c_str(), ax[a].dilation}},
                           fail);
    check_pads({{kPadBegin[a], ax[a].pad_begin}, {kPadEnd[a], ax[a].pad_end}}, int64_t{1} << 16, fail);
    if (ax[a].span() > ax[a].padded()) {
      fail(k, "= " + std::to_string(ax[a].kernel) + " (dilation " + std::to_string(ax[a].dilation) +
                  ") is larger than the padded input (" + std::to_string(ax[a].padded()) + ")");
    }
  }
}

std::string window3d_in_text(const WindowAxes3d& a) {
  return ",d=" + std::to_string(a[0].in) + ",h=" + std::to_string(a[1].in) + ",w=" + std::to_string(a[2].in);
}

std::string window3d_kernel_text(const WindowAxes3d& a) {
  return ",kd=" + std::to_string(a[0].kernel) + ",kh=" + std::to_string(a[1].kernel) +
         ",kw=" + std::to_string(a[2].kernel);
}

std::string window3d_rest_text(const WindowAxes3d& a) {
  std::string t = folded("stride", {a[0].stride, a[1].stride, a[2].stride}, 1);
  t += folded("dilation", {a[0].dilation, a[1].dilation, a[2].dilation}, 1);
  const bool same = a[0].pad_begin == a[0].pad_end && a[1].pad_begin == a[1].pad_end &&
                    a[2].pad_begin == a[2].pad_end && a[0].pad_begin == a[1].pad_begin &&
                    a[0].pad_begin == a[2].pad_begin;
  if (same) return t + (a[0].pad_begin ? ",pad=" + std::to_string(a[0].pad_begin) : "");
  for (int x = 0; x < 3; ++x) t += "," + std::string(kPadBegin[x]) + "=" + std::to_string(a[x].pad_begin);
  for (int x = 0; x < 3; ++x) t += "," + std::string(kPadEnd[x]) + "=" + std::to_string(a[x].pad_end);
  return t;
}

}  // namespace tf::ops

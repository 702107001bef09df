#include "bench/conv2d_workloads.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "compiler/error.h"
#include "support/args.h"
#include "support/files.h"

namespace tf::bench {

namespace {

// The file's field for each conv2d extent; optional ones have a default.
struct FieldSpec {
  const char* field;
  bool required;
  int64_t fallback;
};
const std::vector<FieldSpec>& field_specs() {
  static const std::vector<FieldSpec> specs = {
      {"N", true, 0},    {"IC", true, 0},      {"H", true, 0},         {"W", true, 0},
      {"OC", true, 0},   {"KH", true, 0},      {"KW", true, 0},        {"stride", false, 1},
      {"pad", false, 0}, {"groups", false, 1}, {"dilation", false, 1},
  };
  return specs;
}

std::string known_fields() {
  std::string list = "name";
  for (const auto& f : field_specs()) list += std::string(", ") + f.field;
  return list;
}

// "n=1,c=64,...,stride=1,pad=1" with n, stride and pad always written (a reader compares layers
// by them), groups and dilation only when they are not 1.
std::string plain_shape_text(const ops::Conv2dShape& s, bool with_groups) {
  std::ostringstream t;
  t << "n=" << s.n << ",c=" << s.c << ",h=" << s.h << ",w=" << s.w << ",k=" << s.k << ",r=" << s.r << ",s=" << s.s
    << ",stride=" << s.stride << ",pad=" << s.pad_top;
  if (s.dilation != 1) t << ",dilation=" << s.dilation;
  if (with_groups && s.groups != 1) t << ",groups=" << s.groups;
  return t.str();
}

std::vector<Conv2dVariant> variants_of(const ops::Conv2dShape& s) {
  std::vector<Conv2dVariant> out = {{"plain", "conv2d", plain_shape_text(s, true)}};
  const std::string block = std::to_string(kConv2dChannelBlock);
  if (s.groups == 1) {
    out.push_back({"blocked", "conv2d_nchwc", plain_shape_text(s, false) + ",ib=" + block + ",ob=" + block});
  } else if (s.depthwise()) {
    // depthwise_nchwc takes groups = c by default; it judges the channel multiplier itself.
    out.push_back({"blocked", "depthwise_nchwc", plain_shape_text(s, false) + ",b=" + block});
  }
  // Other grouped layers have no blocked operator. Winograd takes the 3x3 stride-1 ones, one
  // variant per output tile.
  if (s.groups == 1 && s.r == 3 && s.s == 3 && s.stride == 1 && s.dilation == 1) {
    for (int64_t m : kWinogradTiles) {
      out.push_back({winograd_variant(m), "conv2d_winograd_nchwc",
                     plain_shape_text(s, false) + ",ib=" + block + ",ob=" + block + ",m=" + std::to_string(m)});
    }
  }
  return out;
}

Conv2dWorkload workload_from_entry(const Json& entry, const std::string& where) {
  if (!entry.is_object()) throw UsageError(where + ": expected an object, got " + entry.dump());
  if (!entry.contains("name") || !entry.at("name").is_string() || entry.at("name").get<std::string>().empty()) {
    throw UsageError(where + ": \"name\" is missing or not a non-empty string");
  }
  Conv2dWorkload w;
  w.name = entry.at("name").get<std::string>();
  const std::string here = where + " (" + w.name + ")";
  for (const auto& [key, value] : entry.items()) {
    const bool known = key == "name" || std::any_of(field_specs().begin(), field_specs().end(),
                                                    [&](const FieldSpec& f) { return key == f.field; });
    if (!known) throw UsageError(here + ": unknown field \"" + key + "\" (known: " + known_fields() + ")");
  }
  std::map<std::string, int64_t> v;
  for (const auto& f : field_specs()) {
    if (!entry.contains(f.field)) {
      if (f.required) throw UsageError(here + ": \"" + f.field + "\" is missing");
      v[f.field] = f.fallback;
      continue;
    }
    const Json& value = entry.at(f.field);
    if (!value.is_number_integer())
      throw UsageError(here + ": \"" + f.field + "\" must be an integer, got " + value.dump());
    v[f.field] = value.get<int64_t>();
  }
  ops::Conv2dShape& s = w.shape;
  s.n = v["N"], s.c = v["IC"], s.h = v["H"], s.w = v["W"], s.k = v["OC"], s.r = v["KH"], s.s = v["KW"];
  s.stride = v["stride"], s.dilation = v["dilation"], s.groups = v["groups"];
  s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = v["pad"];
  try {
    s.check("conv2d");
  } catch (const CompileError& e) {
    throw UsageError(here + ": " + e.what());
  }
  w.variants = variants_of(s);
  return w;
}

}  // namespace

std::string winograd_variant(int64_t m) { return "winograd-m" + std::to_string(m); }

std::string Conv2dWorkload::model() const { return name.substr(0, name.find('-')); }

std::vector<Conv2dWorkload> conv2d_workloads_from_json(const Json& file, const std::string& where) {
  if (!file.is_object() || !file.contains("workloads") || !file.at("workloads").is_array()) {
    throw UsageError(where + ": expected an object with a \"workloads\" list");
  }
  std::vector<Conv2dWorkload> out;
  std::set<std::string> names;
  size_t index = 0;
  for (const Json& entry : file.at("workloads")) {
    Conv2dWorkload w = workload_from_entry(entry, where + ": workloads[" + std::to_string(index++) + "]");
    if (!names.insert(w.name).second) throw UsageError(where + ": the name \"" + w.name + "\" is used twice");
    out.push_back(std::move(w));
  }
  if (out.empty()) throw UsageError(where + ": no workloads");
  return out;
}

std::vector<Conv2dWorkload> load_conv2d_workloads(const std::string& path) {
  const std::optional<std::string> text = try_read_file(path);
  if (!text)
    throw UsageError("cannot read " + path +
                     " (the standard conv2d workloads; --workloads-file or TUNEFARM_SHARED_DIR)");
  Json file;
  try {
    file = parse_json(*text);
  } catch (const std::exception& e) {
    throw UsageError(path + ": " + e.what());
  }
  return conv2d_workloads_from_json(file, path);
}

std::string default_conv2d_workloads_path(const std::string& source_dir) {
  if (const char* shared = std::getenv("TUNEFARM_SHARED_DIR"); shared && *shared) {
    return std::string(shared) + "/workloads/conv2d.json";
  }
  return source_dir + "/../shared/workloads/conv2d.json";
}

std::vector<Conv2dWorkload> select_conv2d_workloads(const std::vector<Conv2dWorkload>& all, const std::string& names) {
  std::vector<Conv2dWorkload> out;
  std::stringstream list(names);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name.empty()) continue;
    auto it = std::find_if(all.begin(), all.end(), [&](const Conv2dWorkload& w) { return w.name == name; });
    if (it == all.end()) {
      std::string known;
      for (const auto& w : all) known += (known.empty() ? "" : ", ") + w.name;
      throw UsageError("conv2d workload '" + name + "' is not in the workloads file (known: " + known + ")");
    }
    out.push_back(*it);
  }
  return out.empty() ? all : out;
}

}  // namespace tf::bench

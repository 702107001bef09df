#include "cli/input_shape_args.h"

#include <algorithm>

#include "proto/utf8.h"

namespace tf::cli {
namespace {

constexpr const char* kFlag = "--input-shape";

std::string list_text(const graph::Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out;
}

// NAME=LIST, split at the last '=' (an ONNX name may hold one; a list never does).
std::pair<std::string, graph::Shape> parse_one(const std::string& text) {
  const std::string shown = "'" + fleet::printable(text) + "'";
  if (std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    throw UsageError(std::string(kFlag) + " " + shown + ": control characters are not allowed");
  }
  const auto eq = text.rfind('=');
  if (eq == std::string::npos)
    throw UsageError(std::string(kFlag) + " " + shown + ": expected NAME=LIST, e.g. image=1,3,640,640");
  const std::string name = text.substr(0, eq), list = text.substr(eq + 1);
  if (name.empty()) throw UsageError(std::string(kFlag) + " " + shown + ": the input name is empty");
  if (list.empty())
    throw UsageError(std::string(kFlag) + " " + shown + ": the shape is empty (give every extent: NAME=1,3,640,640)");
  const std::string what = std::string(kFlag) + " " + name;
  graph::Shape shape = parse_int_list(what, list);  // names the flag; strtoll's range error covers overflow
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0)
      throw UsageError(what + ": extent " + std::to_string(i) + " = " + std::to_string(shape[i]) + " must be positive");
  }
  return {name, std::move(shape)};
}

}  // namespace

void add_input_shape_options(CLI::App& cmd, InputShapeArgs& a) {
  cmd.add_option(
         "--input-shape", a.shapes,
         "NAME=1,3,640,640: the full shape of input NAME, binding its symbolic extents (once per input; see `model inspect`)")
      ->type_name("NAME=LIST")
      ->expected(1)
      ->allow_extra_args(false)  // one value per flag: `--input-shape a=1,2 m.onnx` leaves the model file positional
      ->take_all();
  cmd.add_option("--batch", a.batch, "extent 0 of every input not given by --input-shape, when symbolic")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))
      ->default_str(
          "1")  // shown; a.batch stays 0 (not given) unless typed, so that a conflict with --input-shape shows
      ->type_name("N");
}

graph::ImportOptions import_options(const InputShapeArgs& a) {
  graph::ImportOptions o;
  if (a.batch > 0) o.batch = a.batch;
  for (const auto& text : a.shapes) {
    auto [name, shape] = parse_one(text);
    auto [it, fresh] = o.input_shapes.emplace(name, shape);
    if (!fresh) {
      throw UsageError(std::string(kFlag) + " " + name + " is given twice (" + list_text(it->second) + " and " +
                       list_text(shape) + "): once per input");
    }
  }
  return o;
}

std::string shape_flags(const InputShapeArgs& a) {
  std::string out;
  for (const auto& text : a.shapes) out += std::string(" ") + kFlag + " " + text;
  if (a.batch > 0) out += " --batch " + std::to_string(a.batch);
  return out;
}

}  // namespace tf::cli

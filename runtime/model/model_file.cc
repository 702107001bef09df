#include "runtime/model/model_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <type_traits>

#include "runtime/kernel_abi.h"
#include "support/json.h"

namespace tf::runtime::model {
namespace {

constexpr char kMagic[8] = {'T', 'F', 'M', 'O', 'D', 'E', 'L', '\0'};
constexpr size_t kHeaderBytes = 32;
constexpr int64_t kAlign = TF_BUFFER_ALIGNMENT;
// Beyond any model a board could hold; a larger size field means a damaged file, not a big model.
constexpr uint64_t kMaxSectionBytes = uint64_t{1} << 36;

int64_t align_up(int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

[[noreturn]] void fail(const std::string& what) { throw ModelFileError(what); }

void put_u32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A string from the manifest as a message quotes it: short printable ones as they are, others by
// their length (a damaged manifest's field may be a megabyte of anything).
std::string quoted(const std::string& s) {
  bool plain = s.size() <= 32;
  for (char c : s) plain = plain && c >= 0x20 && c < 0x7f;
  return plain ? "'" + s + "'" : "(a string of " + std::to_string(s.size()) + " bytes)";
}

const char* storage_name(Storage s) { return s == Storage::Arena ? "arena" : "constant"; }

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// The bytes of a tensor of `shape` with elements of `element` bytes, refusing an extent that is not
// positive or a size no section could hold, before any product can overflow.
int64_t checked_bytes(const std::vector<int64_t>& shape, int element, const std::string& where) {
  int64_t bytes = element;
  for (int64_t d : shape) {
    if (d <= 0 || d > (int64_t{1} << 31)) fail(where + ": extent " + std::to_string(d) + " is out of range");
    if (__builtin_mul_overflow(bytes, d, &bytes) || static_cast<uint64_t>(bytes) > kMaxSectionBytes) {
      fail(where + ": shape " + shape_text(shape) + " needs more than " + std::to_string(kMaxSectionBytes) + " bytes");
    }
  }
  return bytes;
}

Json manifest_of(const ModelFile& m, const std::vector<std::pair<int64_t, int64_t>>& kernel_spans,
                 std::pair<int64_t, int64_t> constants_span) {
  Json j;
  j["format"] = "tunefarm-model";
  j["target"] = m.target;
  j["threads"] = m.threads;
  j["arena_bytes"] = m.arena_bytes;
  Json values = Json::array();
  for (const Value& v : m.values) {
    values.push_back({{"name", v.name},
                      {"shape", v.shape},
                      {"dtype", dtype_name(v.dtype)},
                      {"storage", storage_name(v.storage)},
                      {"offset", v.offset}});
  }
  j["values"] = values;
  j["inputs"] = m.inputs;
  j["outputs"] = m.outputs;
  Json kernels = Json::array();
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    kernels.push_back({{"workload", k.workload},
                       {"config", k.config},
                       {"entry", k.entry},
                       {"offset", kernel_spans[i].first},
                       {"size", kernel_spans[i].second}});
  }
  j["kernels"] = kernels;
  Json steps = Json::array();
  for (const Step& s : m.steps) {
    Json step = {{"kernel", s.kernel}, {"args", s.args}, {"node", s.node}};
    if (!s.shapes.empty()) step["shapes"] = s.shapes;
    steps.push_back(step);
  }
  j["steps"] = steps;
  j["constants"] = {{"offset", constants_span.first}, {"size", constants_span.second}};
  return j;
}

// JSON values read strictly: an integer takes integers in its type's range only, where nlohmann
// would convert 1e300 (undefined behaviour) or 2^64 - 1 (another number) without a word.
bool read_value(const Json& j, std::string* out) {
  if (!j.is_string()) return false;
  *out = j.get<std::string>();
  return true;
}
template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
bool read_value(const Json& j, Int* out) {
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<Int>::max())) return false;
    *out = static_cast<Int>(u);
    return true;
  }
  if (!j.is_number_integer()) return false;
  const int64_t v = j.get<int64_t>();
  if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) return false;
  *out = static_cast<Int>(v);
  return true;
}
template <typename T>
bool read_value(const Json& j, std::vector<T>* out) {
  if (!j.is_array()) return false;
  out->assign(j.size(), T{});
  for (size_t i = 0; i < j.size(); ++i) {
    if (!read_value(j[i], &(*out)[i])) return false;
  }
  return true;
}

// Reads field `key` of `obj` as T, naming `where` and the key when it is missing or of another kind.
template <typename T>
T field(const Json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) fail(where + ": missing field '" + key + "'");
  T value{};
  if (!read_value(obj.at(key), &value))
    fail(where + ": field '" + key + "' is " + json_kind(obj.at(key)) + " of the wrong kind or range");
  return value;
}

ModelFile model_of(const Json& j, const std::vector<uint8_t>& payload) {
  if (field<std::string>(j, "format", "manifest") != "tunefarm-model") fail("manifest: format is not 'tunefarm-model'");
  ModelFile m;
  m.target = field<std::string>(j, "target", "manifest");
  m.threads = field<int>(j, "threads", "manifest");
  m.arena_bytes = field<int64_t>(j, "arena_bytes", "manifest");
  // Sections never overlap in a file this runtime writes; their sizes adding up to no more than the
  // payload keeps what they are copied into within the file's own size.
  uint64_t claimed = 0;
  auto section = [&](const Json& obj, const std::string& where) {
    const auto offset = field<int64_t>(obj, "offset", where), size = field<int64_t>(obj, "size", where);
    const uint64_t payload_bytes = payload.size();
    if (offset < 0 || size < 0 || offset % kAlign != 0 || static_cast<uint64_t>(size) > payload_bytes ||
        static_cast<uint64_t>(offset) > payload_bytes - static_cast<uint64_t>(size)) {
      fail(where + ": bytes [" + std::to_string(offset) + ", +" + std::to_string(size) + ") are outside the payload (" +
           std::to_string(payload_bytes) + " bytes)");
    }
    claimed += static_cast<uint64_t>(size);
    if (claimed > payload_bytes) {
      fail(where + ": the sections so far claim " + std::to_string(claimed) + " bytes, more than the payload's " +
           std::to_string(payload_bytes) + " (they overlap)");
    }
    return std::vector<uint8_t>(payload.begin() + offset, payload.begin() + offset + size);
  };
  const Json values = j.contains("values") ? j["values"] : Json();
  if (!values.is_array()) fail("manifest: field 'values' is missing or not an array");
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string where = "value " + std::to_string(i);
    Value v;
    v.name = field<std::string>(values[i], "name", where);
    v.shape = field<std::vector<int64_t>>(values[i], "shape", where);
    const auto dtype = field<std::string>(values[i], "dtype", where);
    const auto known = dtype_from_name(dtype);
    if (!known)
      fail(where + " ('" + v.name + "'): dtype " + quoted(dtype) +
           " is not supported (float32, int64, int32, bool, float64, int8, uint8)");
    v.dtype = *known;
    const auto storage = field<std::string>(values[i], "storage", where);
    if (storage != "arena" && storage != "constant")
      fail(where + ": storage '" + storage + "' is neither arena nor constant");
    v.storage = storage == "arena" ? Storage::Arena : Storage::Constant;
    v.offset = field<int64_t>(values[i], "offset", where);
    m.values.push_back(std::move(v));
  }
  m.inputs = field<std::vector<int>>(j, "inputs", "manifest");
  m.outputs = field<std::vector<int>>(j, "outputs", "manifest");
  const Json kernels = j.contains("kernels") ? j["kernels"] : Json();
  if (!kernels.is_array()) fail("manifest: field 'kernels' is missing or not an array");
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string where = "kernel " + std::to_string(i);
    Kernel k;
    k.workload = field<std::string>(kernels[i], "workload", where);
    k.config = field<std::string>(kernels[i], "config", where);
    k.entry = field<std::string>(kernels[i], "entry", where);
    k.library = section(kernels[i], where + " (" + k.workload + ")");
    m.kernels.push_back(std::move(k));
  }
  const Json steps = j.contains("steps") ? j["steps"] : Json();
  if (!steps.is_array()) fail("manifest: field 'steps' is missing or not an array");
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string where = "step " + std::to_string(i);
    Step s;
    s.kernel = field<int>(steps[i], "kernel", where);
    s.args = field<std::vector<int>>(steps[i], "args", where);
    s.node = field<std::string>(steps[i], "node", where);
    if (steps[i].contains("shapes")) s.shapes = field<std::vector<std::vector<int64_t>>>(steps[i], "shapes", where);
    m.steps.push_back(std::move(s));
  }
  if (!j.contains("constants")) fail("manifest: missing field 'constants'");
  m.constants = section(j["constants"], "constants");
  return m;
}

}  // namespace

int64_t Value::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void ModelFile::check() const {
  if (threads < 1) fail("threads = " + std::to_string(threads) + " must be at least 1");
  if (arena_bytes < 0) fail("arena_bytes = " + std::to_string(arena_bytes) + " is negative");
  // The memory plan overlaps values whose lifetimes do not meet, so the arena is at most all its
  // values side by side; a larger one is a damaged file asking for memory nothing uses.
  int64_t side_by_side = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const Value& v = values[i];
    const std::string where = "value " + std::to_string(i) + " ('" + v.name + "')";
    const int64_t bytes = checked_bytes(v.shape, dtype_bytes(v.dtype), where);
    const int64_t limit = v.storage == Storage::Arena ? arena_bytes : static_cast<int64_t>(constants.size());
    if (v.offset < 0 || v.offset % kAlign != 0 || bytes > limit || v.offset > limit - bytes) {
      fail(where + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(v.offset) + " do not fit its " +
           storage_name(v.storage) + " section of " + std::to_string(limit) + " bytes (or are unaligned)");
    }
    if (v.storage == Storage::Arena && __builtin_add_overflow(side_by_side, align_up(bytes), &side_by_side)) {
      fail("the arena values together need more bytes than any machine has");
    }
  }
  if (arena_bytes > side_by_side) {
    fail("arena_bytes = " + std::to_string(arena_bytes) + " is more than all arena values side by side (" +
         std::to_string(side_by_side) + " bytes)");
  }
  auto check_id = [&](int id, const std::string& where) {
    if (id < 0 || static_cast<size_t>(id) >= values.size()) {
      fail(where + ": value id " + std::to_string(id) + " is out of range (" + std::to_string(values.size()) +
           " values)");
    }
  };
  for (int id : inputs) {
    check_id(id, "inputs");
    if (values[id].storage != Storage::Arena) fail("input '" + values[id].name + "' is not in the arena");
  }
  // An output may be a constant (a model whose output needs no computing: a shape, a folded value).
  for (int id : outputs) check_id(id, "outputs");
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string where = "step " + std::to_string(i) + " (node '" + steps[i].node + "')";
    if (steps[i].kernel < 0 || static_cast<size_t>(steps[i].kernel) >= kernels.size()) {
      fail(where + ": kernel " + std::to_string(steps[i].kernel) + " is out of range");
    }
    if (steps[i].args.empty()) fail(where + ": no arguments");
    for (int id : steps[i].args) check_id(id, where);
    if (steps[i].shapes.empty()) continue;
    if (steps[i].shapes.size() != steps[i].args.size())
      fail(where + ": " + std::to_string(steps[i].shapes.size()) + " shapes for " +
           std::to_string(steps[i].args.size()) + " arguments");
    for (size_t a = 0; a < steps[i].args.size(); ++a) {
      const int64_t viewed =
          checked_bytes(steps[i].shapes[a], 1, where + ": argument " + std::to_string(a) + "'s view");
      if (viewed != values[steps[i].args[a]].elements()) {
        fail(where + ": argument " + std::to_string(a) + " is viewed with " + std::to_string(viewed) +
             " elements; value '" + values[steps[i].args[a]].name + "' has " +
             std::to_string(values[steps[i].args[a]].elements()));
      }
    }
  }
}

namespace {

// The file in order (header, manifest, then each kernel library and the constants at aligned
// offsets of the payload) handed to `sink` piece by piece: a model's constants (340 MB for a BERT
// encoder) go out as they are, never copied into one image first.
void emit_model_file(const ModelFile& model, const std::function<void(const uint8_t*, size_t)>& sink) {
  model.check();
  int64_t payload_size = 0;
  auto place = [&](size_t bytes) {
    const int64_t offset = align_up(payload_size);
    payload_size = offset + static_cast<int64_t>(bytes);
    return std::make_pair(offset, static_cast<int64_t>(bytes));
  };
  std::vector<std::pair<int64_t, int64_t>> kernel_spans;
  for (const Kernel& k : model.kernels) kernel_spans.push_back(place(k.library.size()));
  const auto constants_span = place(model.constants.size());
  const std::string manifest = manifest_of(model, kernel_spans, constants_span).dump();

  std::vector<uint8_t> header(kMagic, kMagic + 8);
  put_u32(&header, kModelFormatVersion);
  put_u32(&header, 0);
  put_u64(&header, manifest.size());
  put_u64(&header, static_cast<uint64_t>(payload_size));
  sink(header.data(), header.size());
  sink(reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size());
  const std::vector<uint8_t> zeros(kAlign, 0);
  const int64_t manifest_end = static_cast<int64_t>(kHeaderBytes + manifest.size());
  sink(zeros.data(), static_cast<size_t>(align_up(manifest_end) - manifest_end));
  int64_t written = 0;
  auto section = [&](const std::vector<uint8_t>& bytes, const std::pair<int64_t, int64_t>& span) {
    sink(zeros.data(), static_cast<size_t>(span.first - written));
    sink(bytes.data(), bytes.size());
    written = span.first + span.second;
  };
  for (size_t i = 0; i < model.kernels.size(); ++i) section(model.kernels[i].library, kernel_spans[i]);
  section(model.constants, constants_span);
}

}  // namespace

std::vector<uint8_t> model_file_bytes(const ModelFile& model) {
  std::vector<uint8_t> bytes;
  emit_model_file(model, [&](const uint8_t* data, size_t n) { bytes.insert(bytes.end(), data, data + n); });
  return bytes;
}

void write_model_file(const ModelFile& model, const std::string& path) {
  // Written beside the target and renamed over it: a crash mid-write never leaves half a model.
  const std::string temp = path + ".partial";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot write " + temp + ": " + std::strerror(errno));
    emit_model_file(model, [&](const uint8_t* data, size_t n) {
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
    });
    out.flush();
    if (!out) fail("cannot write " + temp + ": " + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    fail("cannot rename " + temp + " to " + path + ": " + std::strerror(errno));
}

ModelFile read_model_file(std::istream& in, uint64_t size, const std::string& name) {
  std::vector<uint8_t> header(kHeaderBytes);
  in.read(reinterpret_cast<char*>(header.data()), kHeaderBytes);
  if (in.gcount() != static_cast<std::streamsize>(kHeaderBytes) || std::memcmp(header.data(), kMagic, 8) != 0) {
    fail(name + " is not a tunefarm model (.tfm) file");
  }
  const auto version = static_cast<uint32_t>(get_le(header.data() + 8, 4));
  if (version != kModelFormatVersion) {
    fail(name + ": model format version " + std::to_string(version) + " (this runtime reads version " +
         std::to_string(kModelFormatVersion) + "; rebuild the model with this tunefarm)");
  }
  const uint64_t manifest_bytes = get_le(header.data() + 16, 8), payload_bytes = get_le(header.data() + 24, 8);
  if (manifest_bytes > kMaxSectionBytes || payload_bytes > kMaxSectionBytes) {
    fail(name + ": damaged header (manifest size " + std::to_string(manifest_bytes) + ", payload size " +
         std::to_string(payload_bytes) + "; at most " + std::to_string(kMaxSectionBytes) + " each)");
  }
  // Both sizes are below 2^36: these sums cannot overflow.
  const uint64_t payload_at = static_cast<uint64_t>(align_up(static_cast<int64_t>(kHeaderBytes + manifest_bytes)));
  const uint64_t promised = payload_at + payload_bytes;
  // Checked against the file before anything is allocated: a 128-byte file may claim gigabytes.
  if (promised > size) {
    fail(name + " is truncated (the header promises " + std::to_string(promised) + " bytes, the file has " +
         std::to_string(size) + ")");
  }
  if (promised < size)
    fail(name + ": damaged header (it accounts for " + std::to_string(promised) + " of the file's " +
         std::to_string(size) + " bytes)");
  std::string manifest(manifest_bytes, '\0');
  in.read(manifest.data(), static_cast<std::streamsize>(manifest_bytes));
  in.ignore(static_cast<std::streamsize>(payload_at - kHeaderBytes - manifest_bytes));
  std::vector<uint8_t> payload(payload_bytes);
  in.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(payload_bytes));
  if (!in) fail(name + " is truncated (it ends before the " + std::to_string(promised) + " bytes its header promises)");
  try {
    ModelFile m = model_of(parse_json(manifest, kModelManifestJsonLimits), payload);
    m.check();
    return m;
  } catch (const JsonError& e) {
    fail(name + ": manifest: " + e.what());
  } catch (const ModelFileError& e) {
    fail(name + ": " + e.what());
  }
}

ModelFile read_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail("cannot read " + path + ": " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) fail("cannot read " + path + ": not a regular file");
  in.seekg(0);
  return read_model_file(in, static_cast<uint64_t>(size), path);
}

}  // namespace tf::runtime::model

#include "support/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>

namespace tf {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw NpyError(path + ": " + why); }

// The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const std::regex re("'" + key + "'\\s*:\\s*('[^']*'|True|False|\\([^)]*\\))");
  std::smatch m;
  if (!std::regex_search(header, m, re)) fail(path, "the .npy header has no '" + key + "'");
  return m[1].str();
}

std::vector<int64_t> parse_shape(const std::string& tuple, const std::string& path) {
  std::vector<int64_t> shape;
  const std::string inner = tuple.substr(1, tuple.size() - 2);
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t comma = inner.find(',', pos);
    if (comma == std::string::npos) comma = inner.size();
    std::string part = inner.substr(pos, comma - pos);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    pos = comma + 1;
    if (part.empty()) continue;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (*end != '\0' || errno != 0 || v < 0 || v > (int64_t{1} << 40)) fail(path, "shape " + tuple + " has a bad extent '" + part + "'");
    shape.push_back(v);
  }
  return shape;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot read: ") + std::strerror(errno));
  char magic[8] = {};
  in.read(magic, 8);
  if (in.gcount() != 8 || std::memcmp(magic, kMagic, 6) != 0) fail(path, "not a NumPy .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) fail(path, ".npy format version " + std::to_string(major) + " is not known");
  uint32_t header_len = 0;
  unsigned char len_bytes[4] = {};
  in.read(reinterpret_cast<char*>(len_bytes), major == 1 ? 2 : 4);
  for (int i = (major == 1 ? 1 : 3); i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  if (!in || header_len > (1u << 20)) fail(path, "damaged .npy header");
  std::string header(header_len, '\0');
  in.read(header.data(), header_len);
  if (!in) fail(path, "truncated .npy header");
  const std::string descr = dict_value(header, "descr", path);
  if (descr != "'<f4'" && descr != "'=f4'") {
    fail(path, "dtype " + descr + " is not float32 ('<f4'); convert it with x.astype(numpy.float32)");
  }
  if (dict_value(header, "fortran_order", path) != "False") fail(path, "Fortran order is not supported; save a C-ordered array");
  NpyArray a;
  a.shape = parse_shape(dict_value(header, "shape", path), path);
  int64_t n = 1;
  for (int64_t d : a.shape) {
    n *= d;
    if (n > (int64_t{1} << 34)) fail(path, "the array is too large");
  }
  a.data.resize(static_cast<size_t>(n));
  in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(n * 4));
  if (in.gcount() != static_cast<std::streamsize>(n * 4)) fail(path, "truncated: the shape needs " + std::to_string(n * 4) + " bytes of data");
  return a;
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<float>& data) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n != static_cast<int64_t>(data.size())) {
    fail(path, "the shape holds " + std::to_string(n) + " elements, the data " + std::to_string(data.size()));
  }
  std::string tuple = "(";
  for (size_t i = 0; i < shape.size(); ++i) tuple += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  tuple += ")";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + tuple + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  const std::string temp = path + ".partial";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) fail(temp, std::string("cannot write: ") + std::strerror(errno));
    out.write(kMagic, 6);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
    out.write(len, 2);
    out << header;
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
    if (!out) fail(temp, std::string("cannot write: ") + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) fail(path, std::string("cannot replace: ") + std::strerror(errno));
}

}  // namespace tf

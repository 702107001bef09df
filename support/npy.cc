#include "support/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>

namespace tf {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
// NumPy pads its headers to 64 bytes; a long one means a damaged file, not a big array.
constexpr uint32_t kMaxHeaderBytes = 1u << 20;
// NumPy's own limit on dimensions (NPY_MAXDIMS, 64 since NumPy 2).
constexpr size_t kMaxRank = 64;

[[noreturn]] void fail(const std::string& name, const std::string& why) { throw NpyError(name + ": " + why); }

// A string from the header as a message quotes it: short printable ones as they are, others by
// their length (a damaged header's field may be a megabyte of anything).
std::string quoted(const std::string& s) {
  bool plain = s.size() <= 32;
  for (char c : s) plain = plain && c >= 0x20 && c < 0x7f;
  return plain ? "'" + s + "'" : "(a string of " + std::to_string(s.size()) + " bytes)";
}

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// The header is a Python dict literal, as numpy writes it with repr():
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// with exactly these three keys, in any order, and whatever whitespace and trailing commas Python
// allows. Read by hand: a regular expression over it recursed once per character and overflowed
// the stack on a long field.
class HeaderReader {
 public:
  HeaderReader(const std::string& text, const std::string& name) : s_(text), name_(name) {}

  Header read() {
    Header h;
    std::set<std::string> seen;
    expect('{');
    while (!at('}')) {
      const size_t key_at = pos_;
      const std::string key = string_literal("a key");
      if (!seen.insert(key).second) bad_at(key_at, quoted(key) + " appears twice");
      expect(':');
      if (key == "descr") {
        h.descr = string_literal("'descr' (the dtype)");
      } else if (key == "fortran_order") {
        h.fortran_order = boolean("'fortran_order'");
      } else if (key == "shape") {
        h.shape = tuple();
      } else {
        bad_at(key_at, "unknown key " + quoted(key) + " (a .npy header has 'descr', 'fortran_order' and 'shape')");
      }
      if (!at('}')) expect(',');
    }
    expect('}');
    skip_space();
    if (pos_ != s_.size()) bad("text after the closing '}'");
    for (const char* key : {"descr", "fortran_order", "shape"}) {
      if (!seen.count(key)) fail(name_, "the .npy header has no '" + std::string(key) + "'");
    }
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& why) const { bad_at(pos_, why); }
  [[noreturn]] void bad_at(size_t at, const std::string& why) const {
    fail(name_, "damaged .npy header at header byte " + std::to_string(at) + ": " + why);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  // Skips whitespace; true when the next character is `c` (not consumed).
  bool at(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    if (!at(c)) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  // 'text' or "text"; numpy's keys and dtype strings hold no escapes.
  std::string string_literal(const std::string& what) {
    skip_space();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) bad(what + " is not a quoted string");
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) bad(what + " has no closing quote");
    std::string text = s_.substr(pos_, end - pos_);
    if (text.find('\\') != std::string::npos) bad(what + " holds a backslash");
    pos_ = end + 1;
    return text;
  }
  bool boolean(const std::string& what) {
    skip_space();
    for (const char* word : {"True", "False"}) {
      if (s_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return word[0] == 'T';
      }
    }
    bad(what + " is neither True nor False");
  }
  // (), (3,), (2, 3) or (2, 3,): non-negative integers, Python 2's "3L" included.
  std::vector<int64_t> tuple() {
    std::vector<int64_t> shape;
    expect('(');
    while (!at(')')) {
      if (shape.size() == kMaxRank) bad("the shape has more than " + std::to_string(kMaxRank) + " extents");
      shape.push_back(extent());
      if (!at(')')) expect(',');
    }
    ++pos_;
    return shape;
  }
  int64_t extent() {
    const size_t from = pos_;
    int64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v))
        bad("a shape extent is too large");
      ++pos_;
    }
    if (pos_ == from) bad("a shape extent is not a non-negative integer");
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;
    return v;
  }

  const std::string& s_;
  const std::string& name_;
  size_t pos_ = 0;
};

// The .npy dtype strings read and written, per element type; '=' is the host's order, and a
// little-endian host is the only one this runs on.
struct Descr {
  const char* text;
  DType dtype;
};
constexpr Descr kDescrs[] = {{"<f4", DType::Float32}, {"=f4", DType::Float32}, {"<i8", DType::Int64},
                             {"=i8", DType::Int64},   {"<i4", DType::Int32},   {"=i4", DType::Int32},
                             {"|b1", DType::Bool},    {"<f8", DType::Float64}, {"=f8", DType::Float64},
                             {"|i1", DType::Int8},    {"|u1", DType::UInt8}};

const char* descr_of(DType t) {
  for (const auto& d : kDescrs) {
    if (d.dtype == t) return d.text;
  }
  return "?";
}

// What a dtype string names, for a refusal: "'<f8' (float64)", "'>f4' (big-endian float32)".
std::string describe_descr(const std::string& descr) {
  static const struct {
    char kind;
    const char* name;
  } kKinds[] = {{'f', "float"},          {'i', "int"},         {'u', "uint"},  {'b', "bool"}, {'c', "complex"},
                {'U', "unicode string"}, {'S', "byte string"}, {'O', "object"}};
  std::string named;
  if (descr.size() >= 3 && descr.size() <= 4 && std::strchr("<>|=", descr[0])) {
    for (const auto& k : kKinds) {
      if (descr[1] != k.kind) continue;
      const std::string digits = descr.substr(2);
      if (digits.find_first_not_of("0123456789") != std::string::npos) break;
      const int size = std::stoi(digits);
      named = k.kind == 'b'                 ? std::string("bool of ") + digits + " byte(s)"
              : std::strchr("fiuc", k.kind) ? k.name + std::to_string(size * 8)
                                            : k.name;
      if (descr[0] == '>') named = "big-endian " + named;
    }
  }
  return quoted(descr) + (named.empty() ? "" : " (" + named + ")");
}

DType dtype_of_descr(const std::string& descr, const std::string& name) {
  for (const auto& d : kDescrs) {
    if (descr == d.text) return d.dtype;
  }
  fail(name, "dtype " + describe_descr(descr) +
                 " is not supported (float32 '<f4', float64 '<f8', int64 '<i8', int32 '<i4', int8 '|i1', uint8 '|u1', "
                 "bool '|b1'); convert it with x.astype(...)");
}

// The bytes of data of `shape` with elements of `element` bytes, or a refusal when the product
// overflows.
uint64_t data_bytes(const std::vector<int64_t>& shape, int element, const std::string& name) {
  uint64_t n = static_cast<uint64_t>(element);
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
      fail(name, "the shape's extents multiply beyond any file");
  }
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

HostTensor read_npy(std::istream& in, uint64_t size, const std::string& name) {
  char magic[8] = {};
  in.read(magic, 8);
  if (in.gcount() != 8 || std::memcmp(magic, kMagic, 6) != 0) fail(name, "not a NumPy .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) fail(name, ".npy format version " + std::to_string(major) + " is not known");
  const int length_bytes = major == 1 ? 2 : 4;
  unsigned char len_bytes[4] = {};
  in.read(reinterpret_cast<char*>(len_bytes), length_bytes);
  if (in.gcount() != length_bytes) fail(name, "truncated .npy header");
  uint32_t header_len = 0;
  for (int i = length_bytes - 1; i >= 0; --i) header_len = (header_len << 8) | len_bytes[i];
  const uint64_t data_offset = 8 + length_bytes + uint64_t{header_len};
  if (header_len > kMaxHeaderBytes)
    fail(name, "damaged .npy header: it claims " + std::to_string(header_len) + " bytes");
  if (data_offset > size) {
    fail(name, "truncated .npy header: it claims " + std::to_string(header_len) + " bytes, the file has " +
                   std::to_string(size));
  }
  std::string text(header_len, '\0');
  in.read(text.data(), header_len);
  if (in.gcount() != static_cast<std::streamsize>(header_len)) fail(name, "truncated .npy header");
  const Header h = HeaderReader(text, name).read();
  const DType dtype = dtype_of_descr(h.descr, name);
  if (h.fortran_order) fail(name, "Fortran order is not supported; save a C-ordered array");
  const uint64_t bytes = data_bytes(h.shape, dtype_bytes(dtype), name);
  if (bytes > size - data_offset) {
    fail(name, "truncated: shape " + shape_text(h.shape) + " needs " + std::to_string(bytes) +
                   " bytes of data, the file has " + std::to_string(size - data_offset));
  }
  HostTensor a;
  a.dtype = dtype;
  a.shape = h.shape;
  a.bytes.resize(bytes);
  if (bytes == 0) return a;
  in.read(reinterpret_cast<char*>(a.bytes.data()), static_cast<std::streamsize>(bytes));
  if (in.gcount() != static_cast<std::streamsize>(bytes)) fail(name, "truncated: the data ends early");
  // Kernels read a bool as one byte, 0 or 1; NumPy writes nothing else, a hand-made file might.
  if (dtype == DType::Bool) {
    for (uint8_t& b : a.bytes) b = b != 0;
  }
  return a;
}

HostTensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, std::string("cannot read: ") + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) fail(path, "cannot tell its size (not a regular file?)");
  in.seekg(0);
  return read_npy(in, static_cast<uint64_t>(size), path);
}

void write_npy(const std::string& path, const HostTensor& t) {
  const int64_t n = t.elements();
  if (static_cast<uint64_t>(n) * static_cast<uint64_t>(dtype_bytes(t.dtype)) != t.bytes.size()) {
    fail(path, "the shape holds " + std::to_string(n) + " " + dtype_name(t.dtype) + " elements, the data " +
                   std::to_string(t.bytes.size()) + " bytes");
  }
  std::string header = std::string("{'descr': '") + descr_of(t.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_text(t.shape) + ", }";
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
    out.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
    if (!out) fail(temp, std::string("cannot write: ") + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) fail(path, std::string("cannot replace: ") + std::strerror(errno));
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<float>& data) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  if (n != static_cast<int64_t>(data.size())) {
    fail(path, "the shape holds " + std::to_string(n) + " elements, the data " + std::to_string(data.size()));
  }
  write_npy(path, HostTensor::floats(shape, data));
}

}  // namespace tf

// A tiny binary encoding for the messages between a measuring parent and its worker process (and,
// later, anything else in the runtime that must not depend on protobuf): little-endian integers,
// doubles, length-prefixed strings and blobs. Readers throw std::runtime_error on truncated input.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tf::runtime::wire {

class Writer {
 public:
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void i32(int32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void i64(int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void blob(const void* p, size_t n) {
    u64(n);
    raw(p, n);
  }
  const std::vector<uint8_t>& bytes() const { return buf_; }

 private:
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  std::vector<uint8_t> buf_;
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  uint32_t u32() { return get<uint32_t>(); }
  int32_t i32() { return get<int32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  int64_t i64() { return get<int64_t>(); }
  double f64() { return get<double>(); }
  std::string str() {
    size_t n = length();
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  // Returns a pointer into the message and the blob's size.
  const uint8_t* blob(size_t* n) {
    *n = length();
    const uint8_t* at = p_;
    p_ += *n;
    return at;
  }

 private:
  template <typename T>
  T get() {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) throw std::runtime_error("truncated message");
    T v;
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  size_t length() {
    uint64_t n = u64();
    if (n > static_cast<uint64_t>(end_ - p_)) throw std::runtime_error("truncated message");
    return static_cast<size_t>(n);
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

// Frames on a file descriptor: u32 kind, u64 length, payload. Return false on EOF or error.
bool write_frame(int fd, uint32_t kind, const std::vector<uint8_t>& payload);
bool read_frame(int fd, uint32_t* kind, std::vector<uint8_t>* payload);

}  // namespace tf::runtime::wire

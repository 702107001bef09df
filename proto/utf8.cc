#include "proto/utf8.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cstdio>

#include "runtime/escape_bytes.h"

namespace tf::fleet {
namespace {

std::string hex_byte(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", c);
  return buf;
}

}  // namespace

std::string utf8_error(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2, cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, cp = c & 0x07;
    } else {
      return "byte " + std::to_string(i) + " (" + hex_byte(c) + ") starts no UTF-8 character";
    }
    if (i + len > n)
      return "byte " + std::to_string(i) + " (" + hex_byte(c) + ") starts a character the text cuts short";
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80)
        return "byte " + std::to_string(i + k) + " (" + hex_byte(p[i + k]) + ") is not a continuation byte";
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
      return "bytes " + std::to_string(i) + " to " + std::to_string(i + len - 1) + " encode no valid character";
    }
    i += len;
  }
  return "";
}

std::string printable(const std::string& s) {
  return runtime::escape_bytes(s, [](unsigned char c) { return c >= 0x20 && c < 0x7f; });
}

std::string invalid_utf8_field(const google::protobuf::Message& m) {
  using google::protobuf::FieldDescriptor;
  const auto* refl = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  refl->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->type() != FieldDescriptor::TYPE_STRING && f->type() != FieldDescriptor::TYPE_MESSAGE) continue;
    const int count = f->is_repeated() ? refl->FieldSize(m, f) : 1;
    for (int i = 0; i < count; ++i) {
      const std::string where = f->name() + (f->is_repeated() ? "[" + std::to_string(i) + "]" : "");
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        const std::string v = f->is_repeated() ? refl->GetRepeatedString(m, f, i) : refl->GetString(m, f);
        if (std::string e = utf8_error(v); !e.empty())
          return where + ": '" + printable(v) + "' is not valid UTF-8: " + e;
      } else {
        const auto& sub = f->is_repeated() ? refl->GetRepeatedMessage(m, f, i) : refl->GetMessage(m, f);
        if (std::string e = invalid_utf8_field(sub); !e.empty()) return where + "." + e;
      }
    }
  }
  return "";
}

}  // namespace tf::fleet

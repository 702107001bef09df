#include "runtime/escape_bytes.h"

#include <cstdio>

namespace tf::runtime {

std::string escape_bytes(const std::string& text, bool (*passes)(unsigned char)) {
  std::string out;
  for (unsigned char c : text) {
    if (passes(c)) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace tf::runtime

#include "proto/secrets.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include <stdexcept>
#include <vector>

namespace tf::fleet {

std::string random_hex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) {
    throw std::runtime_error("OpenSSL's RAND_bytes could not make a secret: " +
                             std::string(ERR_error_string(ERR_get_error(), nullptr)));
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : raw) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

bool same_secret(const std::string& given, const std::string& secret) {
  if (secret.empty() || given.size() != secret.size()) return false;  // a secret's length is no secret
  return CRYPTO_memcmp(given.data(), secret.data(), secret.size()) == 0;
}

}  // namespace tf::fleet

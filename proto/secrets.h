// Secrets (bearer tokens, the dashboard's session ids and CSRF tokens): made by OpenSSL's CSPRNG and
// compared in time that does not depend on where they differ.
#pragma once

#include <cstddef>
#include <string>

namespace tf::fleet {

// `bytes` random bytes from RAND_bytes, as lower-case hex. Throws std::runtime_error when OpenSSL
// cannot make them.
std::string random_hex(size_t bytes);

// Whether `given` is `secret`, compared with CRYPTO_memcmp. An empty secret matches nothing.
bool same_secret(const std::string& given, const std::string& secret);

}  // namespace tf::fleet

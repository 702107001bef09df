// Content hashes that are the same on every build, machine and run (std::hash promises none of
// that): for identities that are stored or travel between farms, such as a measurement record's
// hash in the database and the hash in a kernel's symbol name. XXH3 (libxxhash), whose output is
// frozen since xxHash 0.8.0.
#pragma once

#include <string>
#include <string_view>

namespace tf {

// XXH3-64 of `bytes` as 16 lowercase hex digits: short, for names.
std::string stable_hash_hex64(std::string_view bytes);

// XXH3-128 of `bytes` as 32 lowercase hex digits: for identities many millions of records must
// never share by chance.
std::string stable_hash_hex128(std::string_view bytes);

}  // namespace tf

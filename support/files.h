// Reading a whole file: the one helper every component uses, so each caller only says what the file
// is when it cannot be read (in its own error type).
#pragma once

#include <optional>
#include <string>

namespace tf {

// The file's bytes; nullopt when it cannot be opened or read (errno says why).
std::optional<std::string> try_read_file(const std::string& path);

// The same, throwing std::runtime_error "cannot read 'PATH': REASON" instead.
std::string read_file(const std::string& path);

}  // namespace tf

// A token file (tracker --token-file, a board's or a client's): lines "<token> <role> [name]" with
// comments and blank lines, as parse_token_lines reads them. Refusals are std::runtime_error naming
// the file and line, never a token; what is accepted is a token of at least 16 characters, each once.
#include <set>
#include <sstream>

#include "fuzz/fuzz_check.h"
#include "proto/tokens.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tf;
  const std::string text = fuzz::as_text(data, size);
  fuzz::expect_refusal_or_success<std::runtime_error>([&] {
    std::istringstream in(text);
    const std::vector<fleet::TokenEntry> tokens = fleet::parse_token_lines(in, "fuzz.tokens");
    if (tokens.empty()) fuzz::finding("no token and no refusal");
    std::set<std::string> seen;
    for (const auto& t : tokens) {
      if (t.token.size() < 16) fuzz::finding("a token under 16 characters was accepted");
      if (t.token.find_first_of(" \t\r\n#") != std::string::npos) fuzz::finding("a token holds a separator");
      if (!seen.insert(t.token).second) fuzz::finding("a token was accepted twice");
      if (t.name.empty()) fuzz::finding("an entry without a name");
    }
  });
  return 0;
}

// Bearer tokens with roles. A token file holds one line per token:
//     <token> <role> [name]        # role: board, builder, client or admin
// (blank lines and # comments are skipped). The tracker's file holds every token it accepts; a
// board's or a client's file holds its own line (the first token in the file is used).
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace tf::fleet {

// A builder compiles the candidates boards run: its role is trusted with code, as a board's is with
// running it.
enum class Role { Board, Client, Admin, Builder };
const char* role_name(Role r);
std::optional<Role> parse_role(const std::string& s);

struct TokenEntry {
  std::string token;
  Role role = Role::Client;
  std::string name;  // who holds it, for logs and job owners; defaults to "<role>-<first 6 chars>"
};

// Throws std::runtime_error naming the file and line for a line it cannot read or a token listed
// twice (by line numbers: the message never holds a token), and naming the file when it holds no
// token at all.
std::vector<TokenEntry> read_token_file(const std::string& path);
// The same over lines already open; `path` names them in messages.
std::vector<TokenEntry> parse_token_lines(std::istream& in, const std::string& path);

// A fresh random token line for a token file: "tf_<32 hex> <role> <name>".
std::string new_token_line(Role role, const std::string& name);

// The token a board or client sends: the first one in `token_file` when given, else
// $TUNEFARM_TOKEN, else empty. Throws std::runtime_error when the file cannot be read.
std::string caller_token(const std::string& token_file);

}  // namespace tf::fleet

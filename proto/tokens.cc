#include "proto/tokens.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "proto/secrets.h"

namespace tf::fleet {

const char* role_name(Role r) {
  switch (r) {
    case Role::Board: return "board";
    case Role::Client: return "client";
    case Role::Admin: return "admin";
    case Role::Builder: return "builder";
  }
  return "?";
}

std::optional<Role> parse_role(const std::string& s) {
  if (s == "board") return Role::Board;
  if (s == "client") return Role::Client;
  if (s == "admin") return Role::Admin;
  if (s == "builder") return Role::Builder;
  return std::nullopt;
}

std::vector<TokenEntry> read_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("token file '" + path + "': cannot read it");
  return parse_token_lines(in, path);
}

std::vector<TokenEntry> parse_token_lines(std::istream& in, const std::string& path) {
  std::vector<TokenEntry> out;
  std::map<std::string, int> line_of;  // token -> the line that holds it
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string token, role, name;
    if (!(words >> token)) continue;
    const std::string where = "token file '" + path + "' line " + std::to_string(number);
    if (!(words >> role)) throw std::runtime_error(where + ": a token needs a role (board, builder, client or admin)");
    auto r = parse_role(role);
    if (!r) throw std::runtime_error(where + ": unknown role '" + role + "' (roles: board, builder, client, admin)");
    if (token.size() < 16) throw std::runtime_error(where + ": token is too short (at least 16 characters)");
    // One token, one role and one name: a second line for it would make which one counts silent.
    // The message names the lines, never the token.
    if (auto [first, fresh] = line_of.emplace(token, number); !fresh) {
      throw std::runtime_error(where + ": the same token as line " + std::to_string(first->second) +
                               " (each token once)");
    }
    words >> name;
    TokenEntry e;
    e.token = token;
    e.role = *r;
    e.name = name.empty() ? std::string(role_name(*r)) + "-" + token.substr(token.size() - 6) : name;
    out.push_back(e);
  }
  // A tracker given no token would refuse every caller; a board or client would send none.
  if (out.empty())
    throw std::runtime_error("token file '" + path +
                             "' holds no token (lines '<token> <role> [name]': tunefarm token new)");
  return out;
}

std::string new_token_line(Role role, const std::string& name) {
  const std::string token = "tf_" + random_hex(16);
  return token + " " + role_name(role) + (name.empty() ? "" : " " + name);
}

std::string caller_token(const std::string& token_file) {
  if (!token_file.empty()) {
    return read_token_file(token_file).front().token;
  }
  // The variable may hold the token alone or its whole token-file line.
  const char* env = std::getenv("TUNEFARM_TOKEN");
  std::string token;
  if (env) std::istringstream(env) >> token;
  return token;
}

}  // namespace tf::fleet

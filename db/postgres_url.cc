#include "db/postgres_url.h"

#include <libpq-fe.h>

#include <memory>

#include "db/error.h"
#include "runtime/escape_bytes.h"

namespace tf::db {
namespace {

constexpr size_t kMaxUrlBytes = 4096;
constexpr size_t kMaxShownBytes = 200;

bool printable(unsigned char c) { return c >= 0x20 && c != 0x7f; }

// The password the URL carries, as libpq reads it (percent-decoded); empty when none.
std::string password_of(const std::string& url) {
  char* error = nullptr;
  std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)> options(PQconninfoParse(url.c_str(), &error),
                                                                         PQconninfoFree);
  PQfreemem(error);
  if (!options) return "";
  for (const PQconninfoOption* o = options.get(); o->keyword; ++o) {
    if (std::string(o->keyword) == "password" && o->val) return o->val;
  }
  return "";
}

// Masks the value of every `password=` in `s` up to the next `&`, space or end.
void mask_password_parameters(std::string* s) {
  for (size_t at = s->find("password="); at != std::string::npos; at = s->find("password=", at + 1)) {
    const size_t from = at + 9;
    size_t to = from;
    while (to < s->size() && (*s)[to] != '&' && (*s)[to] != ' ') ++to;
    s->replace(from, to - from, "***");
  }
}

}  // namespace

std::string redacted_url(const std::string& url) {
  std::string shown = url;
  const size_t scheme = shown.find("://");
  if (scheme != std::string::npos) {
    const size_t host_start = scheme + 3;
    const size_t authority_end = std::min(shown.find_first_of("/?#", host_start), shown.size());
    const size_t at = shown.rfind('@', authority_end == 0 ? 0 : authority_end - 1);
    if (at != std::string::npos && at >= host_start) {
      const size_t colon = shown.find(':', host_start);
      if (colon != std::string::npos && colon < at) shown.replace(colon + 1, at - colon - 1, "***");
    }
  }
  mask_password_parameters(&shown);
  if (shown.size() > kMaxShownBytes) shown = shown.substr(0, kMaxShownBytes) + "...";
  return runtime::escape_bytes(shown, printable);
}

void check_postgres_url(const std::string& url) {
  if (url.size() > kMaxUrlBytes) {
    throw DbError("PostgreSQL URL '" + redacted_url(url) + "' is " + std::to_string(url.size()) +
                  " bytes long; a database URL is at most " + std::to_string(kMaxUrlBytes));
  }
  for (const char c : url) {
    if (!printable(static_cast<unsigned char>(c))) {
      throw DbError("PostgreSQL URL '" + redacted_url(url) +
                    "' holds a control character; write it as postgresql://USER@HOST:PORT/NAME");
    }
  }
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (!options) {
    std::string why = error ? error : "out of memory";
    PQfreemem(error);
    throw DbError("bad PostgreSQL URL '" + redacted_url(url) + "': " + without_password(why, url) +
                  " (postgresql://USER@HOST:PORT/NAME)");
  }
  bool named = false;
  for (const PQconninfoOption* o = options; o->keyword; ++o) {
    if (std::string(o->keyword) == "dbname" && o->val && *o->val) named = true;
  }
  PQconninfoFree(options);
  if (!named) {
    throw DbError("PostgreSQL URL '" + redacted_url(url) +
                  "' names no database; write it as postgresql://USER@HOST:PORT/NAME");
  }
}

std::string without_password(std::string message, const std::string& url) {
  const std::string password = password_of(url);
  if (!password.empty()) {
    for (size_t at = message.find(password); at != std::string::npos; at = message.find(password, at + 3)) {
      message.replace(at, password.size(), "***");
    }
  }
  mask_password_parameters(&message);
  for (char& c : message) {
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  size_t from = 0;
  while (from < message.size() && message[from] == ' ') ++from;
  message.erase(0, from);
  // Collapse the runs of spaces libpq's line breaks and indents leave.
  std::string out;
  for (char c : message) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
  }
  return runtime::escape_bytes(out, [](unsigned char c) { return c >= 0x20 && c != 0x7f; });
}

}  // namespace tf::db

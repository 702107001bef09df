#include "db/connection.h"

#include <cctype>

#include "db/postgres.h"
#include "db/postgres_url.h"
#include "db/sqlite.h"

namespace tf::db {

bool is_postgres_url(const std::string& location) {
  for (const std::string scheme : {"postgresql://", "postgres://"}) {
    if (location.size() < scheme.size()) continue;
    bool match = true;
    for (size_t i = 0; i < scheme.size() && match; ++i) {
      match = std::tolower(static_cast<unsigned char>(location[i])) == scheme[i];
    }
    if (match) return true;
  }
  return false;
}

std::string shown_location(const std::string& location) {
  return is_postgres_url(location) ? redacted_url(location) : location;
}

std::unique_ptr<Connection> open_connection(const std::string& location, Connection::Access access) {
  if (is_postgres_url(location)) return std::make_unique<PostgresConnection>(location, access);
  return std::make_unique<SqliteConnection>(location, access);
}

Transaction::~Transaction() {
  if (!done_) {
    try {
      c_.rollback();
    } catch (...) {
    }
  }
}

}  // namespace tf::db

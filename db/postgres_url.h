// PostgreSQL URLs as a --db value: postgresql://USER[:PASSWORD]@HOST[:PORT]/NAME[?PARAM=VALUE...]
// (libpq's connection URIs). What is refused before libpq sees it, and how messages show one.
// Internal to db/.
#pragma once

#include <string>

namespace tf::db {

// The URL as a message may quote it: any password (in the user part, or a password= parameter)
// as ***, bytes that could split a log line or drive a terminal as \xNN, and a huge URL cut short.
std::string redacted_url(const std::string& url);

// Throws DbError, naming the redacted URL, for one no database can be at: control characters,
// longer than any host and database name need, or one libpq cannot parse (a bad port, an unknown
// parameter, no database name).
void check_postgres_url(const std::string& url);

// `message` (from libpq or the server) as one line without the URL's password in it.
std::string without_password(std::string message, const std::string& url);

}  // namespace tf::db

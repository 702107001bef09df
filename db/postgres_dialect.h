// Where PostgreSQL's SQL differs from the one dialect db/ writes (connection.h): each difference is
// translated here and nowhere else. Internal to db/.
#pragma once

#include <string>

namespace tf::db {

// `?` and `?N` placeholders as PostgreSQL's `$N` (outside quotes and comments); *params is set to
// the highest parameter number.
std::string postgres_placeholders(const std::string& sql, int* params);

// Schema statements written with SQLite's column types in PostgreSQL's: INTEGER PRIMARY KEY
// (SQLite's row id) as a 64-bit identity column, INTEGER as BIGINT (SQLite's integers are 64-bit),
// REAL as DOUBLE PRECISION, BLOB as BYTEA.
std::string postgres_schema(const std::string& sql);

// A string as a PostgreSQL text value can hold it: text is UTF-8 without NUL, so an invalid byte
// sequence or a NUL becomes U+FFFD (SQLite keeps such bytes; error texts from compilers and boards
// need not be UTF-8, and a record must be kept regardless).
std::string postgres_text(const std::string& s);

}  // namespace tf::db

// The ways a command opens a database. One that must already exist: a mistyped --db is a usage
// error, not a new empty file; a command that only reads opens it read-only, so a read-only file
// (or one on a read-only mount) can still be read and nothing in it changes. Either way this host's
// records filed under LLVM's old name for it count as the host's (tuner/legacy_host_target.h).
#pragma once

#include <memory>
#include <string>

#include "db/database.h"

namespace tf::cli {

enum class DbUse { Read, Write };

// `path`: a SQLite file, or a PostgreSQL URL (db/connection.h). Throws UsageError when there is no
// file at `path`, db::DbError saying what is wrong with one (or with the URL, the server, the
// database it names).
std::unique_ptr<db::Database> open_existing_db(const std::string& path, DbUse use);

// For commands that record: the file is created when missing.
std::unique_ptr<db::Database> open_or_create_db(const std::string& path);

}  // namespace tf::cli

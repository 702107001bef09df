#include "cli/open_db.h"

#include <unistd.h>

#include "support/args.h"
#include "tuner/legacy_host_target.h"

namespace tf::cli {

std::unique_ptr<db::Database> open_existing_db(const std::string& path, DbUse use) {
  // A PostgreSQL database is on its server: whether it is there, the connection says.
  if (!db::is_postgres_url(path) && ::access(path.c_str(), F_OK) != 0) {
    throw UsageError("no database at " + path + " (--db PATH or postgresql://USER@HOST:PORT/NAME)");
  }
  return tuner::open_host_database(path,
                                   use == DbUse::Read ? db::Database::Open::ReadOnly : db::Database::Open::Existing);
}

std::unique_ptr<db::Database> open_or_create_db(const std::string& path) {
  return tuner::open_host_database(path, db::Database::Open::Create);
}

}  // namespace tf::cli

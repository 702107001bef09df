#include "cli/open_db.h"

#include <unistd.h>

#include "support/args.h"
#include "tuner/legacy_host_target.h"

namespace tf::cli {

std::unique_ptr<db::Database> open_existing_db(const std::string& path, DbUse use) {
  if (::access(path.c_str(), F_OK) != 0) throw UsageError("no database at " + path + " (--db PATH)");
  auto db = std::make_unique<db::Database>(
      path, use == DbUse::Read ? db::Database::Open::ReadOnly : db::Database::Open::Existing);
  tuner::alias_legacy_host_target(*db);
  return db;
}

std::unique_ptr<db::Database> open_or_create_db(const std::string& path) {
  auto db = std::make_unique<db::Database>(path, db::Database::Open::Create);
  tuner::alias_legacy_host_target(*db);
  return db;
}

}  // namespace tf::cli

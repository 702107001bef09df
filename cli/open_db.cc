#include "cli/open_db.h"

#include <unistd.h>

#include "support/args.h"

namespace tf::cli {

std::unique_ptr<db::Database> open_existing_db(const std::string& path, DbUse use) {
  if (::access(path.c_str(), F_OK) != 0) throw UsageError("no database at " + path + " (--db PATH)");
  return std::make_unique<db::Database>(path, use == DbUse::Read ? db::Database::Open::ReadOnly : db::Database::Open::Existing);
}

}  // namespace tf::cli

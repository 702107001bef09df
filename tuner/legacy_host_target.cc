#include "tuner/legacy_host_target.h"

#include "compiler/codegen/target.h"

namespace tf::tuner {

void alias_legacy_host_target(db::Database& db) {
  db.alias_target(codegen::llvm_named_host_target(), codegen::host_target().str());
}

std::unique_ptr<db::Database> open_host_database(const std::string& location, db::Database::Open open) {
  auto db = std::make_unique<db::Database>(location, open);
  alias_legacy_host_target(*db);
  return db;
}

}  // namespace tf::tuner

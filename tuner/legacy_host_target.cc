#include "tuner/legacy_host_target.h"

#include "compiler/codegen/target.h"

namespace tf::tuner {

void alias_legacy_host_target(db::Database& db) {
  db.alias_target(codegen::llvm_named_host_target(), codegen::host_target().str());
}

}  // namespace tf::tuner

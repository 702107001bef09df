#include "db/record_hash.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "db/measurement_rows.h"
#include "support/stable_hash.h"

namespace tf::db {

std::string record_hash(const Measurement& m) {
  // Error texts come from compilers and boards and need not be UTF-8; a record is kept regardless.
  return stable_hash_hex128(m.to_json().dump(-1, ' ', false, Json::error_handler_t::replace));
}

void rehash_records(Connection& c) {
  // Collected first, so no row changes under the statement reading the rows.
  std::vector<std::pair<int64_t, std::string>> hashes;
  Statement rows(c, std::string(kSelectMeasurements) + "ORDER BY m.id");
  while (rows.step()) {
    Measurement m;
    // A row that no longer parses keeps its hash: no record can be written again identical to it.
    if (read_measurement_row(rows, &m)) hashes.emplace_back(rows.column_int(kMeasurementIdColumn), record_hash(m));
  }
  // Should two stored rows say the same thing under different hashes (a file edited by hand), both
  // stay, the second under its hash, rather than the file failing to open.
  Statement update(c,
                   "UPDATE measurements SET record_hash = ?1 WHERE id = ?2 "
                   "AND NOT EXISTS (SELECT 1 FROM measurements o WHERE o.record_hash = ?1 AND o.id <> ?2)");
  for (const auto& [id, hash] : hashes) {
    update.bind(1, hash).bind(2, id).run();
    update.reset();
  }
}

}  // namespace tf::db

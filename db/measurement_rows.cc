#include "db/measurement_rows.h"

#include <cmath>

namespace tf::db {

const char* const kSelectMeasurements =
    "SELECT w.op, w.shape, w.dtype, t.target, t.device_key, m.config, m.config_index, m.costs, m.outcome, "
    "m.error, m.build_ms, m.device, m.compiler_version, m.created_ms, m.job_id, m.timing, m.id "
    "FROM measurements m JOIN workloads w ON w.id = m.workload_id JOIN targets t ON t.id = m.target_id ";

bool read_measurement_row(const Statement& q, Measurement* m) {
  bool parsed = true;
  try {
    m->op = q.column_text(0);
    m->shape = parse_json(q.column_text(1)).get<std::vector<int64_t>>();
    m->config = parse_json(q.column_text(5));
    // A cost stored as null (a NaN or inf written before timings were checked) is kept as NaN, so
    // the reader's timing check refuses the row instead of the parser refusing the whole query.
    for (const auto& c : parse_json(q.column_text(7))) m->costs.push_back(c.is_number() ? c.get<double>() : NAN);
  } catch (const std::exception&) {
    parsed = false;
  }
  m->dtype = q.column_text(2);
  m->target = q.column_text(3);
  m->device_key = q.column_text(4);
  m->config_index = q.column_int(6);
  parsed = parse_outcome(q.column_text(8), &m->outcome) && parsed;
  m->error = q.column_text(9);
  m->build_ms = q.column_double(10);
  m->device = q.column_text(11);
  m->compiler_version = q.column_text(12);
  m->created_ms = q.column_int(13);
  if (!q.column_is_null(14)) m->job_id = q.column_int(14);
  return runtime::parse_timing(q.column_text(15), &m->timing) && parsed;
}

}  // namespace tf::db

// Baselines of whole models: one row per name, the compiled model in it.
#include "db/connection.h"
#include "db/database.h"

namespace tf::db {
namespace {

constexpr const char* kModelBaselineColumns =
    "name, model, input_shapes, target, device_key, threads, compiler_version, device, costs, created_ms";

ModelBaseline read_model_baseline(Statement& q, bool with_tfm) {
  ModelBaseline b;
  b.name = q.column_text(0);
  b.model = q.column_text(1);
  b.input_shapes = q.column_text(2);
  b.target = q.column_text(3);
  b.device_key = q.column_text(4);
  b.threads = static_cast<int>(q.column_int(5));
  b.compiler_version = q.column_text(6);
  b.device = q.column_text(7);
  b.costs = parse_json(q.column_text(8)).get<std::vector<double>>();
  b.created_ms = q.column_int(9);
  if (with_tfm) b.tfm = q.column_blob(10);
  return b;
}

}  // namespace

void Database::save_model_baseline(const ModelBaseline& b, bool replace) {
  if (b.name.empty()) throw DbError("a model baseline needs a name");
  if (b.tfm.empty()) throw DbError("model baseline '" + b.name + "': no compiled model to store");
  Transaction t(conn_);
  Statement exists(conn_, "SELECT model FROM model_baselines WHERE name = ?");
  exists.bind(1, b.name);
  if (exists.step()) {
    if (!replace)
      throw DbError("model baseline '" + b.name + "' exists (of " + exists.column_text(0) +
                    "); replace it or choose another name");
    Statement del(conn_, "DELETE FROM model_baselines WHERE name = ?");
    del.bind(1, b.name).run();
  }
  Statement ins(conn_, std::string("INSERT INTO model_baselines (") + kModelBaselineColumns +
                           ", tfm) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  ins.bind(1, b.name).bind(2, b.model).bind(3, b.input_shapes).bind(4, b.target).bind(5, b.device_key);
  ins.bind(6, static_cast<int64_t>(b.threads))
      .bind(7, b.compiler_version)
      .bind(8, b.device)
      .bind(9, Json(b.costs).dump());
  ins.bind(10, b.created_ms > 0 ? b.created_ms : now_ms()).bind_blob(11, b.tfm);
  ins.run();
  t.commit();
}

std::optional<ModelBaseline> Database::model_baseline(const std::string& name) {
  Statement q(conn_, std::string("SELECT ") + kModelBaselineColumns + ", tfm FROM model_baselines WHERE name = ?");
  q.bind(1, name);
  if (!q.step()) return std::nullopt;
  return read_model_baseline(q, true);
}

std::vector<ModelBaseline> Database::model_baselines() {
  Statement q(conn_, std::string("SELECT ") + kModelBaselineColumns + " FROM model_baselines ORDER BY name");
  std::vector<ModelBaseline> out;
  while (q.step()) out.push_back(read_model_baseline(q, false));
  return out;
}

bool Database::delete_model_baseline(const std::string& name) {
  Transaction t(conn_);
  Statement del(conn_, "DELETE FROM model_baselines WHERE name = ?");
  del.bind(1, name).run();
  const bool any = del.changes() > 0;
  t.commit();
  return any;
}

}  // namespace tf::db

// Jobs: a tuning run's spec, state and progress, and the process running a local one, so a job
// whose process died reads as failed.
#include "db/database.h"

#include <utility>

#include "db/process_identity.h"

namespace tf::db {

int64_t Database::create_job(const Json& spec, const std::string& owner, const std::string& state) {
  Transaction t(conn_);
  Statement s(conn_,
              "INSERT INTO jobs (spec, state, progress, owner, created_ms, updated_ms, "
              "process_host, process_pid, process_start) VALUES (?, ?, '{}', ?, ?, ?, ?, ?, ?) RETURNING id");
  const int64_t now = now_ms();
  s.bind(1, spec.dump()).bind(2, state).bind(3, owner).bind(4, now).bind(5, now);
  if (state == "running") {
    const ProcessIdentity self = ProcessIdentity::self();
    s.bind(6, self.host).bind(7, self.pid).bind(8, self.start);
  } else {
    s.bind(6, std::string()).bind_null(7).bind(8, std::string());
  }
  if (!s.step()) throw DbError("database '" + conn_.location() + "': a new job got no id");
  const int64_t id = s.column_int(0);
  s.run();
  t.commit();
  return id;
}

void Database::update_job(int64_t id, const std::string& state, const Json& progress) {
  Transaction t(conn_);
  Statement s(conn_, "UPDATE jobs SET state = ?, progress = ?, updated_ms = ? WHERE id = ?");
  s.bind(1, state).bind(2, progress.dump(-1, ' ', false, Json::error_handler_t::replace)).bind(3, now_ms()).bind(4, id);
  s.run();
  t.commit();
}

bool Database::adopt_job(int64_t id) {
  const auto j = job(id);  // marks it failed first when its process died
  if (!j || j->state != "failed") return false;
  Transaction t(conn_);
  const ProcessIdentity self = ProcessIdentity::self();
  Statement s(conn_,
              "UPDATE jobs SET state = 'running', updated_ms = ?, process_host = ?, process_pid = ?, process_start = ? "
              "WHERE id = ? AND state = 'failed'");
  s.bind(1, now_ms()).bind(2, self.host).bind(3, self.pid).bind(4, self.start).bind(5, id).run();
  const bool adopted = s.changes() == 1;
  t.commit();
  return adopted;
}

std::vector<Job> Database::jobs() { return read_jobs(std::nullopt); }

std::optional<Job> Database::job(int64_t id) {
  std::vector<Job> one = read_jobs(id);
  if (one.empty()) return std::nullopt;
  return std::move(one.front());
}

std::vector<Job> Database::read_jobs(std::optional<int64_t> id) {
  Statement q(
      conn_,
      std::string(
          "SELECT id, spec, state, progress, owner, created_ms, updated_ms, process_host, process_pid, process_start "
          "FROM jobs ") +
          (id ? "WHERE id = ? " : "") + "ORDER BY id ASC");
  if (id) q.bind(1, *id);
  std::vector<Job> out;
  std::vector<std::pair<size_t, ProcessIdentity>> dead;
  while (q.step()) {
    Job j;
    j.id = q.column_int(0);
    try {
      j.spec = parse_json(q.column_text(1));
      j.progress = parse_json(q.column_text(3));
    } catch (const JsonError&) {
      // A hand-edited row: keep the job, without its details.
    }
    j.state = q.column_text(2);
    j.owner = q.column_text(4);
    j.created_ms = q.column_int(5);
    j.updated_ms = q.column_int(6);
    if (j.state == "running" && !q.column_is_null(8)) {
      const ProcessIdentity p{q.column_text(7), q.column_int(8), q.column_text(9)};
      if (!p.alive()) {
        // Its process was killed (kill -9, a crash, a reboot): the job will never finish.
        j.state = "failed";
        if (!j.progress.is_object()) j.progress = Json::object();
        j.progress["error"] = "the process running this job (pid " + std::to_string(p.pid) + " on " + p.host +
                              ") died before it finished";
        dead.emplace_back(out.size(), p);
      }
    }
    out.push_back(std::move(j));
  }
  if (!dead.empty() && !conn_.read_only()) {
    for (const auto& [i, p] : dead) {
      Transaction t(conn_);
      // Only if still running as we saw it, in the process we saw die: a concurrent writer's newer
      // state wins, and so does a process that adopted the job meanwhile.
      Statement s(conn_,
                  "UPDATE jobs SET state = 'failed', progress = ?, updated_ms = ? WHERE id = ? AND state = 'running' "
                  "AND process_host = ? AND process_pid = ? AND process_start = ?");
      s.bind(1, out[i].progress.dump()).bind(2, now_ms()).bind(3, out[i].id);
      s.bind(4, p.host).bind(5, p.pid).bind(6, p.start).run();
      t.commit();
    }
  }
  return out;
}

}  // namespace tf::db

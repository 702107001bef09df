// The tracker's HTTP face (`tunefarm-tracker --http HOST:PORT`): /metrics for Prometheus, a JSON API
// the dashboard's pages poll (/api/devices, /api/jobs, /api/jobs/ID), the pages themselves, and the
// one thing it changes: cancelling a job (its owner or an admin). Behind the tracker's tokens: a
// bearer header (scrapers, scripts), or a browser session made from a token once.
#pragma once

#include <string>

#include "tracker/auth.h"
#include "tracker/dispatcher.h"
#include "tracker/http/http_server.h"
#include "tracker/http/sessions.h"
#include "tracker/job_manager.h"

namespace tf::tracker::http {

class Dashboard {
 public:
  Dashboard(const Authenticator& auth, Dispatcher& dispatcher, JobManager& jobs, std::string db_path, bool tls);
  Response handle(const Request& req);

 private:
  // The caller, from a bearer header or a session cookie; nullopt (and `*denied` set) otherwise.
  std::optional<Principal> caller(const Request& req, Response* denied);
  Response login(const Request& req);
  Response metrics();
  Response devices();
  Response jobs();
  Response job(int64_t id);
  Response records(int64_t id);  // every measurement of the job, oldest first, with its GFLOPS
  Response cancel(int64_t id, const Principal& who);

  const Authenticator& auth_;
  Dispatcher& dispatcher_;
  JobManager& jobs_;
  std::string db_path_;
  bool tls_;
  Sessions sessions_;
};

}  // namespace tf::tracker::http

// The tracker's HTTP face (`tunefarm-tracker --http HOST:PORT`): /metrics for Prometheus, a JSON API
// the dashboard's pages poll (/api/devices, /api/jobs, /api/jobs/ID), the pages themselves, and the
// one thing it changes: cancelling a job (its owner or an admin). Behind the tracker's tokens: a
// bearer header (scrapers, scripts), or a browser session made from a token once. A browser's
// change must carry the CSRF token its page reads from /api/session and come from the dashboard's
// own origin; without tokens, only requests addressed to a loopback name are answered.
#pragma once

#include <optional>
#include <string>

#include "tracker/auth.h"
#include "tracker/build_pool.h"
#include "tracker/dispatcher.h"
#include "tracker/http/http_server.h"
#include "tracker/http/sessions.h"
#include "tracker/job_manager.h"

namespace tf::tracker::http {

class Dashboard {
 public:
  Dashboard(const Authenticator& auth, Dispatcher& dispatcher, JobManager& jobs, const BuildPool& builds,
            std::string db_path, bool tls);
  Response handle(const Request& req);

 private:
  enum class Via { Bearer, Session, Anonymous };
  struct Caller {
    Principal who;
    Via via = Via::Anonymous;
    std::string csrf_token;  // what its changes must carry in X-CSRF-Token; empty for a bearer
  };
  // The caller, from a bearer header or a session cookie; nullopt (and `*denied` set) otherwise.
  std::optional<Caller> caller(const Request& req, Response* denied);
  // A refusal when the request must not be answered as it came: a Host that is not loopback without
  // tokens, a change from another origin or without the caller's CSRF token.
  std::optional<Response> refuse_foreign(const Request& req) const;
  std::optional<Response> refuse_without_csrf_token(const Request& req, const Caller& caller) const;
  Response login(const Request& req);
  Response session(const Caller& caller) const;
  Response metrics();
  Response devices();
  Response builders();
  Response jobs();
  Response job(int64_t id);
  Response records(int64_t id);  // every measurement of the job, oldest first, with its GFLOPS
  Response cancel(int64_t id, const Principal& who);

  const Authenticator& auth_;
  Dispatcher& dispatcher_;
  const BuildPool& builds_;
  JobManager& jobs_;
  std::string db_path_;
  bool tls_;
  Sessions sessions_;
  // Without tokens every browser is the anonymous admin: one CSRF token for the process.
  const std::string anonymous_csrf_token_;
};

}  // namespace tf::tracker::http

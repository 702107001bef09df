#include "tracker/http/dashboard.h"

#include <sys/stat.h>

#include "compiler/ops/operator.h"
#include "db/database.h"
#include "proto/json_convert.h"
#include "proto/secrets.h"
#include "support/json.h"
#include "tracker/http/assets.h"
#include "tracker/http/origin_checks.h"
#include "tracker/http/redirect.h"

namespace tf::tracker::http {
namespace {

Response text(int status, const std::string& body) {
  Response r;
  r.status = status;
  r.body = body + "\n";
  return r;
}

Response json(const Json& j, int status = 200) {
  Response r;
  r.status = status;
  r.content_type = "application/json";
  r.body = j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  return r;
}

Response redirect(const std::string& to) {
  Response r;
  r.status = 303;
  r.headers.push_back({"Location", to});
  return r;
}

int64_t file_bytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : 0;
}

int http_status(const grpc::Status& s) {
  switch (s.error_code()) {
    case grpc::StatusCode::UNAUTHENTICATED: return 401;
    case grpc::StatusCode::PERMISSION_DENIED: return 403;
    case grpc::StatusCode::NOT_FOUND: return 404;
    case grpc::StatusCode::INVALID_ARGUMENT: return 400;
    case grpc::StatusCode::FAILED_PRECONDITION: return 409;
    default: return 500;
  }
}

// "/api/jobs/12" with prefix "/api/jobs/" -> 12; -1 when the rest is not a job id.
int64_t id_after(const std::string& path, const std::string& prefix, std::string* rest) {
  if (path.compare(0, prefix.size(), prefix) != 0) return -1;
  const std::string tail = path.substr(prefix.size());
  size_t used = 0;
  int64_t id = -1;
  try {
    id = std::stoll(tail, &used);
  } catch (const std::exception&) {
    return -1;
  }
  *rest = tail.substr(used);
  return id > 0 ? id : -1;
}

Response asset(const std::string& name) {
  for (const Asset& a : dashboard_assets()) {
    if (name != a.name) continue;
    Response r;
    const std::string ext = name.substr(name.rfind('.') + 1);
    r.content_type = ext == "html"  ? "text/html; charset=utf-8"
                     : ext == "js"  ? "text/javascript; charset=utf-8"
                     : ext == "css" ? "text/css; charset=utf-8"
                                    : "application/octet-stream";
    r.body = a.text;
    return r;
  }
  return text(404, "no such asset: " + name);
}

const char* const kLoginPage = R"html(<!doctype html>
<html><head><meta charset="utf-8"><title>tunefarm: sign in</title></head>
<body><h1>tunefarm tracker</h1><p>%MESSAGE%</p>
<form method="post" action="/login"><label>Token <input type="password" name="token" autofocus></label>
<button type="submit">Sign in</button></form></body></html>
)html";

}  // namespace

Dashboard::Dashboard(const Authenticator& auth, Dispatcher& dispatcher, JobManager& jobs, const BuildPool& builds,
                     std::string db_path, bool tls)
    : auth_(auth),
      dispatcher_(dispatcher),
      builds_(builds),
      jobs_(jobs),
      db_path_(std::move(db_path)),
      tls_(tls),
      anonymous_csrf_token_(fleet::random_hex(32)) {}

std::optional<Dashboard::Caller> Dashboard::caller(const Request& req, Response* denied) {
  Principal who;
  const std::string header = req.header("authorization");
  if (header.rfind("Bearer ", 0) == 0) {
    const std::string token = header.substr(7);
    const grpc::Status s = auth_.check_token(&token, {fleet::Role::Client, fleet::Role::Admin}, "the dashboard", &who);
    if (s.ok()) return Caller{who, Via::Bearer, ""};
    *denied = text(http_status(s), s.error_message());
    return std::nullopt;
  }
  if (auto session = sessions_.find(cookie_value(req.header("cookie"), Sessions::kCookie))) {
    return Caller{session->who, Via::Session, session->csrf_token};
  }
  const grpc::Status s = auth_.check_token(nullptr, {fleet::Role::Client, fleet::Role::Admin}, "the dashboard", &who);
  if (s.ok()) return Caller{who, Via::Anonymous, anonymous_csrf_token_};  // no tokens on this tracker
  *denied = text(401, s.error_message());
  denied->headers.push_back({"WWW-Authenticate", "Bearer"});
  return std::nullopt;
}

std::optional<Response> Dashboard::refuse_foreign(const Request& req) const {
  if (!auth_.enabled() && !is_loopback_host(req.header("host"))) {
    return text(
        403,
        "refused: this tracker has no --token-file, so its dashboard answers only requests addressed to localhost, "
        "127.0.0.1 or [::1], not to '" +
            req.header("host") +
            "' (a page of that name may be reaching it by DNS "
            "rebinding); open it as http://127.0.0.1:PORT/, or give the tracker a token file");
  }
  if (!is_state_changing(req)) return std::nullopt;
  if (auto why = cross_site_reason(req, tls_))
    return text(403, "refused: " + *why + "; the dashboard changes nothing for another site");
  return std::nullopt;
}

std::optional<Response> Dashboard::refuse_without_csrf_token(const Request& req, const Caller& caller) const {
  if (!is_state_changing(req) || caller.via == Via::Bearer)
    return std::nullopt;  // a page elsewhere cannot set Authorization
  if (fleet::same_secret(req.header("x-csrf-token"), caller.csrf_token)) return std::nullopt;
  return text(
      403,
      "refused: a change by a browser needs the X-CSRF-Token header the dashboard's pages read from GET /api/session "
      "(scripts send Authorization: Bearer TOKEN instead)");
}

Response Dashboard::login(const Request& req) {
  auto page = [](int status, const std::string& message) {
    Response r;
    r.status = status;
    r.content_type = "text/html; charset=utf-8";
    r.body = kLoginPage;
    r.body.replace(r.body.find("%MESSAGE%"), 9, message);
    return r;
  };
  // The token from the form, or once from the URL; either way it becomes a session cookie.
  const std::string token = req.method == "POST"       ? parse_form(req.body)["token"]
                            : req.query.count("token") ? req.query.at("token")
                                                       : "";
  if (token.empty())
    return page(req.method == "POST" ? 401 : 200, "Sign in with a client or admin token (tunefarm token new).");
  Principal who;
  const grpc::Status s = auth_.check_token(&token, {fleet::Role::Client, fleet::Role::Admin}, "the dashboard", &who);
  if (!s.ok()) return page(http_status(s), "Refused: that token is not a client or admin token of this tracker.");
  Response r = redirect(req.method == "GET" && req.path != "/login" ? same_origin_location(req.path) : "/");
  r.headers.push_back({"Set-Cookie", std::string(Sessions::kCookie) + "=" + sessions_.open(who) +
                                         "; Path=/; HttpOnly; SameSite=Strict" + (tls_ ? "; Secure" : "")});
  return r;
}

Response Dashboard::handle(const Request& req) {
  if (auto refused = refuse_foreign(req)) return *refused;
  if (req.path == "/login" || (req.method == "GET" && req.query.count("token"))) return login(req);
  Response denied;
  const std::optional<Caller> who = caller(req, &denied);
  if (!who) {
    // A person at a browser gets the sign-in form; a scraper or script the status.
    if (req.method == "GET" && req.path.rfind("/api/", 0) != 0 && req.path != "/metrics" &&
        req.header("accept").find("text/html") != std::string::npos) {
      Response r = login(Request{});
      r.status = denied.status;
      return r;
    }
    return denied;
  }
  if (auto refused = refuse_without_csrf_token(req, *who)) return *refused;
  if (req.method == "GET") {
    if (req.path == "/" || req.path == "/index.html") return asset("index.html");
    if (req.path.rfind("/assets/", 0) == 0) return asset(req.path.substr(8));
    std::string tail;
    if (id_after(req.path, "/jobs/", &tail) > 0 && tail.empty()) return asset("job.html");
  }
  if (req.path == "/metrics" && req.method == "GET") return metrics();
  if (req.path == "/api/session" && req.method == "GET") return session(*who);
  if (req.path == "/api/devices" && req.method == "GET") return devices();
  if (req.path == "/api/builders" && req.method == "GET") return builders();
  if (req.path == "/api/jobs" && req.method == "GET") return jobs();
  std::string rest;
  if (const int64_t id = id_after(req.path, "/api/jobs/", &rest); id > 0) {
    if (rest.empty() && req.method == "GET") return job(id);
    if (rest == "/records" && req.method == "GET") return records(id);
    if (rest == "/cancel" && req.method == "POST") return cancel(id, who->who);
  }
  return text(404, "no such page: " + req.method + " " + req.path);
}

// Who the browser is signed in as, and the CSRF token its page sends with a change. A page of
// another origin cannot read this answer: no CORS header allows it.
Response Dashboard::session(const Caller& caller) const {
  const char* via = caller.via == Via::Bearer ? "bearer" : caller.via == Via::Session ? "session" : "anonymous";
  return json({{"name", caller.who.name},
               {"role", fleet::role_name(caller.who.role)},
               {"via", via},
               {"csrf_token", caller.csrf_token}});
}

Response Dashboard::metrics() {
  Metrics::Gauges g;
  for (const v1::Device& d : dispatcher_.devices()) ++g.boards[{d.device_key(), d.state()}];
  g.queued = dispatcher_.queued_per_key();
  for (const v1::Job& j : jobs_.list(false, 1 << 30)) ++g.jobs[fleet::job_state_name(j.state())];
  g.db_bytes = file_bytes(db_path_) + file_bytes(db_path_ + "-wal");
  for (const BuilderStatus& b : builds_.builders()) {
    g.builders.push_back({b.builder_id,
                          b.draining        ? "draining"
                          : b.in_flight > 0 ? "busy"
                                            : "idle",
                          b.in_flight, b.builds_done, b.builds_failed, b.bad_answers, b.builds_per_s});
  }
  const BuildPoolCounts c = builds_.counts();
  g.builds = {{"remote", c.remote}, {"here", c.local}, {"cached", c.cached}};
  g.builds_reassigned = c.reassigned;
  g.build_queue = c.queued;
  Response r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = dispatcher_.metrics().exposition(g);
  return r;
}

Response Dashboard::devices() {
  Json all = Json::array();
  for (const v1::Device& d : dispatcher_.devices()) all.push_back(fleet::device_to_json(d));
  return json(all);
}

Response Dashboard::builders() {
  Json all = Json::array();
  for (const BuilderStatus& b : builds_.builders()) {
    all.push_back({{"builder_id", b.builder_id},
                   {"hostname", b.hostname},
                   {"peer", b.peer},
                   {"compiler_version", b.compiler_version},
                   {"triples", b.triples},
                   {"jobs", b.jobs},
                   {"in_flight", b.in_flight},
                   {"state", b.draining        ? "draining"
                             : b.in_flight > 0 ? "busy"
                                               : "idle"},
                   {"builds_done", b.builds_done},
                   {"builds_failed", b.builds_failed},
                   {"bad_answers", b.bad_answers},
                   {"builds_per_s", b.builds_per_s},
                   {"connected_ms", b.connected_ms},
                   {"last_heartbeat_ms", b.last_heartbeat_ms}});
  }
  const BuildPoolCounts c = builds_.counts();
  return json(Json{{"builders", all},
                   {"builds", {{"remote", c.remote}, {"here", c.local}, {"cached", c.cached}}},
                   {"reassigned", c.reassigned},
                   {"queued", c.queued}});
}

Response Dashboard::jobs() {
  Json all = Json::array();
  for (const v1::Job& j : jobs_.list(false, 200)) all.push_back(fleet::job_to_json(j));
  return json(all);
}

Response Dashboard::job(int64_t id) {
  v1::Job j;
  const grpc::Status s = jobs_.get(id, &j);
  if (!s.ok()) return text(http_status(s), s.error_message());
  return json(fleet::job_to_json(j));
}

Response Dashboard::records(int64_t id) {
  v1::Job j;
  const grpc::Status s = jobs_.get(id, &j);
  if (!s.ok()) return text(http_status(s), s.error_message());
  db::Database db(db_path_);
  Json all = Json::array();
  for (const db::Measurement& m : db.job_measurements(id)) {
    double gflops = 0;
    if (m.outcome == db::Outcome::Ok && m.mean_s() > 0) {
      try {
        gflops = static_cast<double>(ops::find_operator(m.op).flops(m.shape)) / m.mean_s() * 1e-9;
      } catch (const std::exception&) {
        // An op this tracker does not know (a record from a newer one) shows without GFLOPS.
      }
    }
    all.push_back({{"workload", m.workload_key()},
                   {"config_index", m.config_index},
                   {"config", m.config},
                   {"outcome", db::outcome_name(m.outcome)},
                   {"error", m.error},
                   {"gflops", gflops},
                   {"mean_s", m.mean_s()},
                   {"device", m.device},
                   {"created_ms", m.created_ms}});
  }
  return json(all);
}

Response Dashboard::cancel(int64_t id, const Principal& who) {
  v1::Job j;
  const grpc::Status s = jobs_.cancel(id, who, &j);
  if (!s.ok()) return text(http_status(s), s.error_message());
  return json(fleet::job_to_json(j));
}

}  // namespace tf::tracker::http

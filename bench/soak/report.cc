#include "bench/soak/report.h"

#include <algorithm>
#include <thread>

#include "bench/bench_util.h"

namespace tf::soak {

namespace {

int64_t count(const std::map<std::string, int64_t>& m, const std::string& k) {
  const auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}

Json first_last_max(const std::vector<Sample>& samples, int64_t Sample::*field_kb, int Sample::*field_n) {
  Json o = Json::object();
  if (samples.empty()) return o;
  auto value = [&](const Sample& s) -> int64_t { return field_kb ? s.*field_kb : s.*field_n; };
  int64_t most = 0;
  for (const Sample& s : samples) most = std::max(most, value(s));
  o["first"] = value(samples.front());
  o["last"] = value(samples.back());
  o["max"] = most;
  return o;
}

Json lifetime_json(const Lifetime& l) {
  Json o = Json::object();
  o["process"] = l.name + "#" + std::to_string(l.index);
  o["pid"] = l.pid;
  o["start_s"] = l.start_s;
  o["end_s"] = l.end_s;
  o["ended"] = l.ended;
  o["samples"] = l.samples.size();
  o["rss_kb"] = first_last_max(l.samples, &Sample::rss_kb, nullptr);
  o["fds"] = first_last_max(l.samples, nullptr, &Sample::fds);
  return o;
}

}  // namespace

bool Findings::all_held() const {
  return std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.held; });
}

void print_progress(std::FILE* out, double t_s, const Tally& tally, const std::map<std::string, int64_t>& jobs,
                    int64_t trials) {
  std::fprintf(
      out,
      "[%5.0f s] jobs %lld submitted, %lld done, %lld cancelled, %lld failed, %lld running or queued; %lld trials; "
      "kills: tracker %lld, boards %lld (+%lld SIGTERM), synthetic %lld; malformed %lld\n",
      t_s, static_cast<long long>(tally.submitted), static_cast<long long>(count(jobs, "done")),
      static_cast<long long>(count(jobs, "cancelled")), static_cast<long long>(count(jobs, "failed")),
      static_cast<long long>(count(jobs, "running") + count(jobs, "queued")), static_cast<long long>(trials),
      static_cast<long long>(count(tally.faults, "tracker kill -9")),
      static_cast<long long>(count(tally.faults, "board kill -9")),
      static_cast<long long>(count(tally.faults, "board SIGTERM")),
      static_cast<long long>(count(tally.faults, "synthetic boards kill -9")),
      static_cast<long long>(tally.malformed_sent));
  std::fflush(out);
}

Json soak_document(const RunInfo& run, const Tally& tally, const Findings& findings,
                   const std::vector<Member*>& members) {
  Json doc = Json::object();
  doc["name"] = "soak";
  doc["machine"] = {{"cpu", bench::cpu_name()}, {"cores", std::max(1u, std::thread::hardware_concurrency())}};
  doc["date"] = bench::today();
  doc["duration_s"] = run.duration_s;
  doc["drain_s"] = run.drain_s;
  doc["elapsed_s"] = run.elapsed_s;
  doc["seed"] = run.seed;
  doc["boards"] = {{"real", run.real_boards}, {"synthetic", run.synthetic_boards}};
  doc["faults"] = tally.faults;
  doc["malformed"] = tally.malformed;
  doc["requests"] = {{"well_formed", tally.well_formed},  {"well_formed_answered", tally.well_formed_answered},
                     {"malformed", tally.malformed_sent}, {"malformed_refused_clearly", tally.malformed_clear},
                     {"unanswered", tally.unanswered},    {"unclear", tally.unclear}};
  Json jobs = findings.jobs_by_state;
  jobs["submitted"] = tally.submitted;
  jobs["cancel_requests"] = tally.cancel_requests;
  jobs["refused_by_limit"] = tally.refused_by_limit;
  doc["jobs"] = jobs;
  doc["trials"] = {{"recorded", findings.trials_recorded},
                   {"reported", findings.trials_reported},
                   {"duplicates", findings.duplicates},
                   {"count_mismatches", findings.count_mismatches}};
  Json procs = Json::array();
  for (const Member* m : members) {
    for (const Lifetime& l : m->lifetimes()) procs.push_back(lifetime_json(l));
  }
  doc["processes"] = procs;
  Json crashes = Json::array();
  for (const auto& f : tally.process_faults)
    crashes.push_back({{"who", f.who}, {"what", f.what}, {"log_tail", f.log_tail}});
  doc["process_faults"] = crashes;
  Json verdicts = Json::array();
  for (const Verdict& v : findings.verdicts)
    verdicts.push_back({{"invariant", v.name}, {"held", v.held}, {"detail", v.detail}});
  doc["invariants"] = verdicts;
  doc["ok"] = findings.all_held();
  return doc;
}

void print_table(std::FILE* out, const Json& doc) {
  std::fprintf(out, "\n## Soak: %.0f s of faults + drain, seed %llu, %.0f s in all\n\n",
               doc["duration_s"].get<double>(), static_cast<unsigned long long>(doc["seed"].get<uint64_t>()),
               doc["elapsed_s"].get<double>());
  std::fprintf(out, "| what | count |\n|---|---|\n");
  for (const auto& [k, v] : doc["faults"].items())
    std::fprintf(out, "| %s | %lld |\n", k.c_str(), static_cast<long long>(v.get<int64_t>()));
  for (const auto& [k, v] : doc["jobs"].items())
    std::fprintf(out, "| jobs %s | %lld |\n", k.c_str(), static_cast<long long>(v.get<int64_t>()));
  for (const auto& [k, v] : doc["trials"].items())
    std::fprintf(out, "| trials %s | %lld |\n", k.c_str(), static_cast<long long>(v.get<int64_t>()));
  const Json& r = doc["requests"];
  std::fprintf(out, "| well-formed requests answered | %lld / %lld |\n",
               static_cast<long long>(r["well_formed_answered"].get<int64_t>()),
               static_cast<long long>(r["well_formed"].get<int64_t>()));
  std::fprintf(out, "| malformed requests refused clearly | %lld / %lld |\n",
               static_cast<long long>(r["malformed_refused_clearly"].get<int64_t>()),
               static_cast<long long>(r["malformed"].get<int64_t>()));
  std::fprintf(
      out,
      "\n| process | ended | samples | RSS MB first / last / max | fds first / last / max |\n|---|---|---|---|---|\n");
  for (const Json& p : doc["processes"]) {
    const Json &rss = p["rss_kb"], &fds = p["fds"];
    if (rss.empty()) continue;
    std::fprintf(out, "| %s | %s | %zu | %.0f / %.0f / %.0f | %lld / %lld / %lld |\n",
                 p["process"].get<std::string>().c_str(), p["ended"].get<std::string>().c_str(),
                 p["samples"].get<size_t>(), rss["first"].get<double>() / 1024, rss["last"].get<double>() / 1024,
                 rss["max"].get<double>() / 1024, static_cast<long long>(fds["first"].get<int64_t>()),
                 static_cast<long long>(fds["last"].get<int64_t>()), static_cast<long long>(fds["max"].get<int64_t>()));
  }
  std::fprintf(out, "\n| invariant | held | detail |\n|---|---|---|\n");
  for (const Json& v : doc["invariants"]) {
    std::fprintf(out, "| %s | %s | %s |\n", v["invariant"].get<std::string>().c_str(),
                 v["held"].get<bool>() ? "yes" : "NO", v["detail"].get<std::string>().c_str());
  }
  std::fflush(out);
}

}  // namespace tf::soak

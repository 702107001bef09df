#include "db/postgres.h"

#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "db/postgres_dialect.h"
#include "db/postgres_url.h"

namespace tf::db {
namespace {

// The type of a parameter PostgreSQL infers from where it stands (text compared with a number
// column is read as that number), and the two it is told: int8 and float8 values, bytea bytes.
constexpr Oid kInferredOid = 0;
constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kByteaOid = 17;

// Every write transaction takes this transaction-level advisory lock first: one writer at a time
// per database, as SQLite has, across every process and host using it. Readers never wait for it.
constexpr long long kWriteLockKey = 0x74756e656661726dLL;  // "tunefarm"

// The first key of the session-level advisory lock a process running a job holds (the second is
// the job's id): the server releases it when the session ends, however the process ended.
constexpr int kJobLockClass = 0x7466;  // "tf"

// SQLSTATE lock_not_available: lock_timeout ran out.
constexpr const char* kLockTimeout = "55P03";

using Result = std::unique_ptr<PGresult, void (*)(PGresult*)>;

std::string sqlstate(const PGresult* r) {
  const char* s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  return s ? s : "";
}

class PostgresStatement : public StatementBackend {
 public:
  PostgresStatement(PostgresConnection& c, const std::string& sql) : c_(c), sql_(sql), result_(nullptr, PQclear) {
    int params = 0;
    translated_ = postgres_placeholders(sql, &params);
    params_.resize(static_cast<size_t>(params));
  }

  void bind_int(int i, int64_t v) override { param(i) = {kInt8Oid, std::to_string(v), false, false}; }
  void bind_double(int i, double v) override {
    std::string text;
    if (std::isnan(v)) {
      text = "NaN";
    } else if (std::isinf(v)) {
      text = v > 0 ? "Infinity" : "-Infinity";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      text = buf;
    }
    param(i) = {kFloat8Oid, text, false, false};
  }
  void bind_text(int i, const std::string& v) override { param(i) = {kInferredOid, postgres_text(v), false, false}; }
  void bind_blob(int i, const std::vector<uint8_t>& v) override {
    param(i) = {kByteaOid, std::string(v.begin(), v.end()), true, false};
  }
  void bind_null(int i) override { param(i) = {kInferredOid, "", false, true}; }

  bool step() override {
    if (!result_) execute();
    if (row_ + 1 >= PQntuples(result_.get())) {
      row_ = PQntuples(result_.get());
      return false;
    }
    ++row_;
    return true;
  }

  void reset() override {
    result_.reset();
    row_ = -1;
    for (auto& p : params_) p = Param{};
  }

  int64_t changes() const override {
    const char* n = result_ ? PQcmdTuples(result_.get()) : "";
    return *n ? std::strtoll(n, nullptr, 10) : 0;
  }

  int64_t column_int(int i) const override {
    const char* v = value(i);
    return v ? std::strtoll(v, nullptr, 10) : 0;
  }
  double column_double(int i) const override {
    const char* v = value(i);
    return v ? std::strtod(v, nullptr) : 0.0;
  }
  std::string column_text(int i) const override {
    const char* v = value(i);
    return v ? std::string(v, static_cast<size_t>(PQgetlength(result_.get(), row_, i))) : "";
  }
  std::vector<uint8_t> column_blob(int i) const override {
    const char* v = value(i);
    if (!v) return {};
    size_t n = 0;
    unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(v), &n);
    if (!bytes) throw DbError("database '" + c_.location() + "': out of memory reading a blob");
    std::vector<uint8_t> out(bytes, bytes + n);
    PQfreemem(bytes);
    return out;
  }
  bool column_is_null(int i) const override { return value(i) == nullptr; }

 private:
  struct Param {
    Oid type = kInferredOid;
    std::string value;
    bool binary = false;
    bool null = true;
  };

  Param& param(int i) {
    if (i < 1 || static_cast<size_t>(i) > params_.size()) {
      throw DbError("database '" + c_.location() + "': parameter " + std::to_string(i) + " of '" + sql_ +
                    "' does not exist");
    }
    return params_[static_cast<size_t>(i - 1)];
  }

  const char* value(int i) const {
    if (!result_ || row_ < 0 || row_ >= PQntuples(result_.get()) || i < 0 || i >= PQnfields(result_.get())) {
      return nullptr;
    }
    return PQgetisnull(result_.get(), row_, i) ? nullptr : PQgetvalue(result_.get(), row_, i);
  }

  void execute() {
    const size_t n = params_.size();
    std::vector<Oid> types(n);
    std::vector<const char*> values(n);
    std::vector<int> lengths(n), formats(n);
    for (size_t k = 0; k < n; ++k) {
      types[k] = params_[k].type;
      values[k] = params_[k].null ? nullptr : params_[k].value.data();
      lengths[k] = static_cast<int>(params_[k].value.size());
      formats[k] = params_[k].binary ? 1 : 0;
    }
    result_.reset(c_.execute([&](pg_conn* conn) {
      return PQexecParams(conn, translated_.c_str(), static_cast<int>(n), types.data(), values.data(), lengths.data(),
                          formats.data(), 0);
    }));
    const ExecStatusType status = result_ ? PQresultStatus(result_.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      const std::string why = c_.describe(result_.get());
      result_.reset();
      throw DbError("database '" + c_.location() + "': " + why + " (in '" + sql_ + "')");
    }
    row_ = -1;
  }

  PostgresConnection& c_;
  std::string sql_, translated_;
  std::vector<Param> params_;
  Result result_;
  int row_ = -1;
};

}  // namespace

PostgresConnection::PostgresConnection(const std::string& url, Access access)
    : Connection(redacted_url(url), access), url_(url) {
  check_postgres_url(url);
  // The URL comes last, so what it says (a connect_timeout of its own) wins over these defaults.
  const char* keys[] = {"connect_timeout", "fallback_application_name", "dbname", nullptr};
  const char* values[] = {"10", "tunefarm", url.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, 1);
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = conn_ ? without_password(PQerrorMessage(conn_), url) : "out of memory";
    PQfinish(conn_);
    conn_ = nullptr;
    throw DbError("cannot open database '" + location() + "': " + why);
  }
  try {
    start_session();
  } catch (...) {
    PQfinish(conn_);
    conn_ = nullptr;
    throw;
  }
}

void PostgresConnection::start_session() {
  // Notices ("relation already exists, skipping") are not for the user.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  // Text leaves and arrives as UTF-8, whatever the client's locale says.
  exec("SET client_encoding = 'UTF8'");
  if (read_only()) exec("SET default_transaction_read_only = on");
}

pg_result* PostgresConnection::execute(const std::function<pg_result*(pg_conn*)>& send) {
  PGresult* r = send(conn_);
  if (PQstatus(conn_) != CONNECTION_BAD || in_transaction_ || claims_ > 0) return r;
  PQclear(r);
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) {
    throw DbError("database '" + location() + "': lost the connection, and cannot connect again: " + describe(nullptr));
  }
  start_session();
  return send(conn_);
}

std::string PostgresConnection::describe(const pg_result* r) const {
  return without_password(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_), url_);
}

PostgresConnection::~PostgresConnection() { PQfinish(conn_); }

std::unique_ptr<StatementBackend> PostgresConnection::prepare(const std::string& sql) {
  return std::make_unique<PostgresStatement>(*this, sql);
}

void PostgresConnection::exec(const std::string& sql) {
  Result r(execute([&](pg_conn* conn) { return PQexec(conn, sql.c_str()); }), PQclear);
  const ExecStatusType status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  if (sqlstate(r.get()) == kLockTimeout) {
    throw DbError("database '" + location() + "': another connection or process holds its write lock (waited " +
                  std::to_string(kBusyTimeoutMs / 1000) + " s)");
  }
  throw DbError("database '" + location() + "': " + describe(r.get()));
}

void PostgresConnection::exec_schema(const std::string& sql) { exec(postgres_schema(sql)); }

std::vector<std::string> PostgresConnection::table_names() {
  Statement tables(*this, "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()");
  std::vector<std::string> names;
  while (tables.step()) names.push_back(tables.column_text(0));
  return names;
}

bool PostgresConnection::claim_job(int64_t id) {
  // Job ids are counted from 1; past 2^31 they share locks, which claims only more rarely.
  Statement lock(*this, "SELECT pg_try_advisory_lock(" + std::to_string(kJobLockClass) + ", CAST(? AS INTEGER))");
  lock.bind(1, static_cast<int64_t>(id & 0x7fffffff));
  const bool claimed = lock.step() && lock.column_text(0) == "t";
  // A claim lives in the session: this connection is never made again behind its back.
  if (claimed) ++claims_;
  return claimed;
}

void PostgresConnection::begin_write() {
  exec("BEGIN");
  in_transaction_ = true;
  try {
    exec("SET LOCAL lock_timeout = '" + std::to_string(kBusyTimeoutMs) + "ms'");
    exec("SELECT pg_advisory_xact_lock(" + std::to_string(kWriteLockKey) + ")");
  } catch (...) {
    try {
      rollback();
    } catch (...) {
    }
    throw;
  }
}

void PostgresConnection::commit() {
  in_transaction_ = false;
  exec("COMMIT");
}

void PostgresConnection::rollback() {
  in_transaction_ = false;
  exec("ROLLBACK");
}

}  // namespace tf::db

#include "db/sqlite.h"

#include <sqlite3.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace tf::db {
namespace {

// What the code means to an operator, with the system's own reason behind a failed write or open
// ("No space left on device", "File too large"): " (...)", or "" when there is nothing to add.
std::string explain(sqlite3* db, int code) {
  std::string meaning = describe_sqlite_code(code);
  const int primary = code & 0xff;
  const int system = db ? sqlite3_system_errno(db) : 0;
  if (system != 0 && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
    meaning += (meaning.empty() ? "" : ": ") + std::string(std::strerror(system));
  }
  return meaning.empty() ? "" : " (" + meaning + ")";
}

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  if (!db) throw DbError(what + ": out of memory", SQLITE_NOMEM);
  const int code = sqlite3_extended_errcode(db);
  throw DbError(what + ": " + sqlite3_errmsg(db) + explain(db, code), code);
}

bool readable(sqlite3* db) {
  sqlite3_stmt* probe = nullptr;
  const bool ok = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master LIMIT 1", -1, &probe, nullptr) == SQLITE_OK &&
                  sqlite3_step(probe) != SQLITE_ERROR;
  sqlite3_finalize(probe);
  return ok || (sqlite3_errcode(db) & 0xff) != SQLITE_CANTOPEN;
}

}  // namespace

std::string describe_sqlite_code(int code) {
  if (code == SQLITE_IOERR_WRITE) return "a write failed: the disk is full, or the file reached a size limit";
  switch (code & 0xff) {
    case SQLITE_FULL: return "the disk is full";
    case SQLITE_BUSY:
      return "another connection or process holds its write lock (waited " + std::to_string(kBusyTimeoutMs / 1000) +
             " s)";
    case SQLITE_READONLY: return "the database is read-only: its file, directory or file system cannot be written";
    case SQLITE_NOTADB: return "the file is not a SQLite database";
    case SQLITE_CANTOPEN: return "the file cannot be opened: missing, or no permission";
    case SQLITE_CORRUPT: return "the database file is corrupt";
    case SQLITE_IOERR: return "an I/O error";
    case SQLITE_PERM: return "permission denied";
    default: return "";
  }
}

namespace {

class SqliteStatement : public StatementBackend {
 public:
  SqliteStatement(sqlite3* db, const std::string& sql) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) fail(db, "prepare '" + sql + "'");
  }
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void bind_int(int i, int64_t v) override { check(sqlite3_bind_int64(stmt_, i, v)); }
  void bind_double(int i, double v) override { check(sqlite3_bind_double(stmt_, i, v)); }
  void bind_text(int i, const std::string& v) override {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind_blob(int i, const std::vector<uint8_t>& v) override {
    check(sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  void bind_null(int i) override { check(sqlite3_bind_null(stmt_, i)); }

  bool step() override {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) {
      changes_ = sqlite3_changes(db_);
      return false;
    }
    fail(db_, "step '" + sql_ + "'");
  }

  void reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    changes_ = 0;
  }

  int64_t changes() const override { return changes_; }
  int64_t column_int(int i) const override { return sqlite3_column_int64(stmt_, i); }
  double column_double(int i) const override { return sqlite3_column_double(stmt_, i); }
  std::string column_text(int i) const override {
    const unsigned char* t = sqlite3_column_text(stmt_, i);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, i))) : "";
  }
  std::vector<uint8_t> column_blob(int i) const override {
    const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, i));
    const int n = sqlite3_column_bytes(stmt_, i);
    return p ? std::vector<uint8_t>(p, p + n) : std::vector<uint8_t>();
  }
  bool column_is_null(int i) const override { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) fail(db_, "bind");
  }

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  int64_t changes_ = 0;
};

}  // namespace

SqliteConnection::SqliteConnection(const std::string& path, Access access) : Connection(path, access) {
  int flags = SQLITE_OPEN_FULLMUTEX;
  if (access == Access::ReadOnly) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE | (access == Access::Create ? SQLITE_OPEN_CREATE : 0);
  }
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    const int code = db_ ? sqlite3_extended_errcode(db_) : rc;
    sqlite3_close(db_);
    db_ = nullptr;
    const std::string meaning = describe_sqlite_code(code);
    throw DbError("cannot open database '" + path + "': " + msg + (meaning.empty() ? "" : " (" + meaning + ")"), code);
  }
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db_, 1);
  if (access == Access::ReadOnly && !readable(db_)) open_immutable();
  if (access != Access::ReadOnly && sqlite3_db_readonly(db_, "main") == 1) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw DbError("database '" + path + "' is read-only (" + describe_sqlite_code(SQLITE_READONLY) +
                      "); commands that only read it (best, history, export, baseline list) still work",
                  SQLITE_READONLY);
  }
  exec("PRAGMA foreign_keys = ON");
}

// A WAL file on a read-only file system whose -shm cannot be created cannot be read the usual
// way; opened as immutable it can (nobody can write it there, so nothing changes under us).
void SqliteConnection::open_immutable() {
  std::string uri = "file:";
  for (char ch : location()) {
    if (ch == '%')
      uri += "%25";
    else if (ch == '?')
      uri += "%3f";
    else if (ch == '#')
      uri += "%23";
    else
      uri += ch;
  }
  uri += "?immutable=1";
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI, nullptr) !=
          SQLITE_OK ||
      !readable(db)) {
    sqlite3_close(db);
    return;  // keep the first connection: its error is the one to report
  }
  sqlite3_close(db_);
  db_ = db;
  sqlite3_extended_result_codes(db_, 1);
}

SqliteConnection::~SqliteConnection() { sqlite3_close_v2(db_); }

void SqliteConnection::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    const int code = sqlite3_extended_errcode(db_);
    throw DbError("database '" + location() + "': " + msg + explain(db_, code), code);
  }
}

std::unique_ptr<StatementBackend> SqliteConnection::prepare(const std::string& sql) {
  return std::make_unique<SqliteStatement>(db_, sql);
}

std::vector<std::string> SqliteConnection::table_names() {
  try {
    Statement tables(*this, "SELECT name FROM sqlite_master WHERE type = 'table'");
    std::vector<std::string> names;
    while (tables.step()) names.push_back(tables.column_text(0));
    return names;
  } catch (const DbError& e) {
    if ((e.code() & 0xff) == SQLITE_NOTADB) {
      throw DbError("'" + location() + "' is not a tunefarm database: it is not a SQLite file at all", e.code());
    }
    throw;
  }
}

void SqliteConnection::prepare_for_writes() {
  exec("PRAGMA journal_mode = WAL");
  exec("PRAGMA synchronous = NORMAL");  // WAL + NORMAL: a committed transaction survives a crash of the process
}

void SqliteConnection::begin_write() {
  // The busy timeout covers most contention; a deadlock-avoidance SQLITE_BUSY at BEGIN is retried,
  // but a lock another process held through the whole timeout is reported, not waited out again.
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    try {
      exec("BEGIN IMMEDIATE");
      return;
    } catch (const DbError&) {
      if (attempt >= 50 || std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(kBusyTimeoutMs)) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(20 + attempt * 10));
    }
  }
}

}  // namespace tf::db

// A thin RAII layer over the SQLite C API: connections, prepared statements, transactions. The
// tunefarm database (database.h) is written only in terms of this.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace tf::db {

class DbError : public std::runtime_error {
 public:
  explicit DbError(const std::string& what, int code = 0) : std::runtime_error(what), code_(code) {}
  // The SQLite result code behind the error (SQLITE_FULL, SQLITE_READONLY, ...); 0 when none.
  int code() const { return code_; }

 private:
  int code_ = 0;
};

// How long a connection waits for another's write lock before its statement fails with SQLITE_BUSY.
constexpr int kBusyTimeoutMs = 10000;

// What a SQLite result code means for the user: "the disk is full", "the file is read-only", ...
std::string describe_sqlite_code(int code);

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int i, int64_t v);
  Statement& bind(int i, double v);
  Statement& bind(int i, const std::string& v);
  Statement& bind_blob(int i, const std::vector<uint8_t>& v);
  Statement& bind_null(int i);

  bool step();  // true while a row is available
  void run();   // steps to completion
  void reset();

  int64_t column_int(int i) const;
  double column_double(int i) const;
  std::string column_text(int i) const;
  std::vector<uint8_t> column_blob(int i) const;
  bool column_is_null(int i) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

class Connection {
 public:
  // Create: the file is created when missing. Existing: it must exist. ReadOnly: it must exist and
  // is never written, not even its journal mode (a reader of a read-only file, or of another
  // program's file).
  enum class Access { Create, Existing, ReadOnly };
  // Opens with a busy timeout and extended result codes; a writable connection to a file SQLite
  // could only open read-only throws (it would fail at the first write, saying less).
  Connection(const std::string& path, Access access);
  Connection(const std::string& path, bool create) : Connection(path, create ? Access::Create : Access::Existing) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void exec(const std::string& sql);
  int64_t last_insert_id() const;
  int changes() const;
  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }
  bool read_only() const { return access_ == Access::ReadOnly; }

 private:
  void open_immutable();

  sqlite3* db_ = nullptr;
  Access access_;
  std::string path_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back if not committed. Taking the write lock up front means a
// busy database is waited for at BEGIN (with retries), never half way through.
class Transaction {
 public:
  explicit Transaction(Connection& c);
  ~Transaction();
  void commit();

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace tf::db

// The SQLite backend (connection.h): a database in one file, in WAL mode, through the SQLite C API.
#pragma once

#include <memory>
#include <string>

#include "db/connection.h"

struct sqlite3;

namespace tf::db {

// What a SQLite result code means for the user: "the disk is full", "the file is read-only", ...
std::string describe_sqlite_code(int code);

class SqliteConnection : public Connection {
 public:
  // Opens with a busy timeout and extended result codes; a writable connection to a file SQLite
  // could only open read-only throws (it would fail at the first write, saying less). ReadOnly
  // never writes, not even the journal mode (a reader of a read-only file, or of another program's
  // file).
  SqliteConnection(const std::string& path, Access access);
  SqliteConnection(const std::string& path, bool create)
      : SqliteConnection(path, create ? Access::Create : Access::Existing) {}
  ~SqliteConnection() override;

  std::unique_ptr<StatementBackend> prepare(const std::string& sql) override;
  void exec(const std::string& sql) override;
  void exec_schema(const std::string& sql) override { exec(sql); }
  std::vector<std::string> table_names() override;
  void prepare_for_writes() override;
  void begin_write() override;
  void commit() override { exec("COMMIT"); }
  void rollback() override { exec("ROLLBACK"); }
  bool claim_job(int64_t) override { return true; }

  sqlite3* handle() { return db_; }

 private:
  void open_immutable();

  sqlite3* db_ = nullptr;
};

}  // namespace tf::db

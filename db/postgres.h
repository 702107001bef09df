// The PostgreSQL backend (connection.h): a database on a server, shared by every tracker and
// command given its URL, through libpq.
#pragma once

#include <memory>
#include <string>

#include "db/connection.h"

struct pg_conn;

namespace tf::db {

class PostgresConnection : public Connection {
 public:
  // Connects to the database `url` names; throws DbError naming the URL (never its password) when
  // the URL is malformed, the server cannot be reached, refuses the user or has no such database.
  // ReadOnly: every transaction of the session is read-only.
  PostgresConnection(const std::string& url, Access access);
  ~PostgresConnection() override;

  std::unique_ptr<StatementBackend> prepare(const std::string& sql) override;
  void exec(const std::string& sql) override;
  void exec_schema(const std::string& sql) override;
  std::vector<std::string> table_names() override;
  void prepare_for_writes() override {}
  void begin_write() override;
  void commit() override { exec("COMMIT"); }
  void rollback() override { exec("ROLLBACK"); }
  bool claim_job(int64_t id) override;

 private:
  pg_conn* conn_ = nullptr;
  std::string url_;
};

}  // namespace tf::db

// The PostgreSQL backend (connection.h): a database on a server, shared by every tracker and
// command given its URL, through libpq.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "db/connection.h"

struct pg_conn;
struct pg_result;

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
  void commit() override;
  void rollback() override;
  bool claim_job(int64_t id) override;

  // What `send` returns (a libpq result, which the caller frees). When the server dropped the
  // connection (it restarted, or ended the session) outside a transaction and holding no claim,
  // nothing is lost by connecting again: then `send` runs once more on the new connection.
  pg_result* execute(const std::function<pg_result*(pg_conn*)>& send);
  // A message from libpq or the server as one line, without the URL's password.
  std::string describe(const pg_result* r) const;

 private:
  void start_session();

  pg_conn* conn_ = nullptr;
  std::string url_;
  bool in_transaction_ = false;
  int claims_ = 0;
};

}  // namespace tf::db

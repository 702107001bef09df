// The layer the tunefarm database (database.h) is written in: a connection, prepared statements with
// typed binds and columns, and write transactions. Two backends implement it: SQLite files
// (sqlite.h) and PostgreSQL servers (postgres.h); open_connection picks one from the location.
//
// SQL passed here is one dialect, which both backends run as it is: `?` placeholders, ON CONFLICT
// for upserts, RETURNING for new ids. The schema's DDL is SQLite's (released migrations never
// change), which exec_schema translates where a backend's types differ.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/error.h"

namespace tf::db {

// A prepared statement of one backend. Parameters are 1-based, columns 0-based.
class StatementBackend {
 public:
  virtual ~StatementBackend() = default;
  virtual void bind_int(int i, int64_t v) = 0;
  virtual void bind_double(int i, double v) = 0;
  virtual void bind_text(int i, const std::string& v) = 0;
  virtual void bind_blob(int i, const std::vector<uint8_t>& v) = 0;
  virtual void bind_null(int i) = 0;
  virtual bool step() = 0;              // runs the statement at the first call; true while a row is available
  virtual void reset() = 0;             // ready to run again, bindings cleared
  virtual int64_t changes() const = 0;  // rows the finished statement inserted, updated or deleted
  virtual int64_t column_int(int i) const = 0;
  virtual double column_double(int i) const = 0;
  virtual std::string column_text(int i) const = 0;
  virtual std::vector<uint8_t> column_blob(int i) const = 0;
  virtual bool column_is_null(int i) const = 0;
};

class Connection {
 public:
  // Create: a SQLite file is created when missing (a PostgreSQL database must exist). Existing: it
  // must exist. ReadOnly: it must exist and is never written.
  enum class Access { Create, Existing, ReadOnly };

  virtual ~Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  virtual std::unique_ptr<StatementBackend> prepare(const std::string& sql) = 0;
  // One or more statements without parameters.
  virtual void exec(const std::string& sql) = 0;
  // Schema statements as the migrations write them (SQLite's column types).
  virtual void exec_schema(const std::string& sql) = 0;
  // The tables of the database's schema; throws DbError when the location holds no database of
  // this backend at all.
  virtual std::vector<std::string> table_names() = 0;
  // Called once the database is known to be tunefarm's: the settings a writer needs.
  virtual void prepare_for_writes() = 0;
  // A write transaction holds the database's one write lock from its start, as SQLite's BEGIN
  // IMMEDIATE does on both backends: every write path reads, decides and writes with no other
  // writer in between, and a busy database is waited for at the start, never half way through.
  virtual void begin_write() = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;
  // Claims job `id` for this connection's process until the connection closes (however the process
  // ends: a killed process's claim goes with its connection). False when another connection holds
  // it. A file has no other processes' connections to ask: there, every claim succeeds.
  virtual bool claim_job(int64_t id) = 0;

  // The database as messages name it: the file's path, or the URL without its password.
  const std::string& location() const { return location_; }
  bool read_only() const { return access_ == Access::ReadOnly; }

 protected:
  Connection(std::string location, Access access) : location_(std::move(location)), access_(access) {}

 private:
  std::string location_;
  Access access_;
};

// True for a PostgreSQL URL (postgresql://... or postgres://...); anything else is a SQLite path.
bool is_postgres_url(const std::string& location);

// `location` as messages and logs may show it: a URL without its password, a path as it is.
std::string shown_location(const std::string& location);

// A connection to the database at `location`: a PostgreSQL URL or a SQLite file's path.
std::unique_ptr<Connection> open_connection(const std::string& location, Connection::Access access);

class Statement {
 public:
  Statement(Connection& c, const std::string& sql) : s_(c.prepare(sql)) {}

  Statement& bind(int i, int64_t v) {
    s_->bind_int(i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    s_->bind_double(i, v);
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    s_->bind_text(i, v);
    return *this;
  }
  Statement& bind_blob(int i, const std::vector<uint8_t>& v) {
    s_->bind_blob(i, v);
    return *this;
  }
  Statement& bind_null(int i) {
    s_->bind_null(i);
    return *this;
  }

  bool step() { return s_->step(); }
  void run() {
    while (step()) {
    }
  }
  void reset() { s_->reset(); }
  int64_t changes() const { return s_->changes(); }

  int64_t column_int(int i) const { return s_->column_int(i); }
  double column_double(int i) const { return s_->column_double(i); }
  std::string column_text(int i) const { return s_->column_text(i); }
  std::vector<uint8_t> column_blob(int i) const { return s_->column_blob(i); }
  bool column_is_null(int i) const { return s_->column_is_null(i); }

 private:
  std::unique_ptr<StatementBackend> s_;
};

// A write transaction (Connection::begin_write), rolled back unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) { c_.begin_write(); }
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    c_.commit();
    done_ = true;
  }

 private:
  Connection& c_;
  bool done_ = false;
};

}  // namespace tf::db

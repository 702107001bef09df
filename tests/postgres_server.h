// A real PostgreSQL server for the tests of one test process: a cluster Debian's initdb made (once
// per user and server version, kept in /tmp as a template) is copied into a temp dir and pg_ctl
// starts it on a free loopback port (its unix socket in the same dir), at the first test that asks;
// it is stopped and deleted when the process ends. A watchdog process
// does that too when the test process is killed (a ctest timeout), so no server outlives its tests.
// PostgreSQL refuses to run as root: as root (CI), the cluster belongs to `nobody` and its programs
// run as that user through setpriv.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "db/connection.h"
#include "support/subprocess.h"
#include "tests/test_files.h"

namespace tf::testing_support {

class PostgresServer {
 public:
  // The server of this process, started at the first call; nullptr (with *why set) when it cannot
  // run here.
  static PostgresServer* get(std::string* why) {
    static std::string failure;
    static std::unique_ptr<PostgresServer> server = [] {
      std::unique_ptr<PostgresServer> s;
      try {
        s.reset(new PostgresServer());
      } catch (const std::exception& e) {
        failure = e.what();
      }
      return s;
    }();
    if (!server && why) *why = failure;
    return server.get();
  }

  // Where Debian installs the server's programs: /usr/lib/postgresql/VERSION/bin, the newest.
  static std::string bin_dir() {
    std::string found;
    int newest = 0;
    if (DIR* versions = ::opendir("/usr/lib/postgresql")) {
      while (const dirent* e = ::readdir(versions)) {
        const int version = std::atoi(e->d_name);
        const std::string dir = std::string("/usr/lib/postgresql/") + e->d_name + "/bin";
        if (version > newest && ::access((dir + "/pg_ctl").c_str(), X_OK) == 0) {
          newest = version;
          found = dir;
        }
      }
      ::closedir(versions);
    }
    return found;
  }

  ~PostgresServer() {
    // The watchdog stops the server and deletes its dir once it reads a line, or end-of-file.
    if (::write(watchdog_fd_, "\n", 1) != 1) std::perror("postgres watchdog");
    ::close(watchdog_fd_);
    int status = 0;
    ::waitpid(watchdog_pid_, &status, 0);
  }

  int port() const { return port_; }

  // postgresql://USER@127.0.0.1:PORT/NAME, with `password` when given.
  std::string url(const std::string& name, const std::string& user = "tunefarm",
                  const std::string& password = "") const {
    return "postgresql://" + user + (password.empty() ? "" : ":" + password) + "@127.0.0.1:" + std::to_string(port_) +
           "/" + name;
  }

  // A new empty database, named after `hint` and numbered so every call gets its own; its URL.
  std::string fresh_database(const std::string& hint) {
    std::string name = "t" + std::to_string(++databases_) + "_";
    for (char c : hint) {
      if (name.size() >= 60) break;
      name += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    }
    admin("CREATE DATABASE " + name);
    return url(name);
  }

  // Runs `sql` on the maintenance database as the superuser.
  void admin(const std::string& sql) {
    auto c = db::open_connection(url("postgres"), db::Connection::Access::Existing);
    c->exec(sql);
  }

 private:
  PostgresServer() {
    const std::string bin = bin_dir();
    if (bin.empty()) throw std::runtime_error("PostgreSQL's server programs (initdb, pg_ctl) are not installed");
    char tmpl[] = "/tmp/tf-pg-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("cannot make a temp dir for PostgreSQL");
    dir_ = tmpl;
    uid_t owner = ::geteuid();
    if (owner == 0) {
      const passwd* nobody = ::getpwnam("nobody");
      if (!nobody || ::access("/usr/bin/setpriv", X_OK) != 0) {
        throw std::runtime_error("running as root, and there is no user 'nobody' or no setpriv to run PostgreSQL as");
      }
      as_user_ = "/usr/bin/setpriv --reuid=" + std::to_string(nobody->pw_uid) +
                 " --regid=" + std::to_string(nobody->pw_gid) + " --clear-groups -- ";
      owner = nobody->pw_uid;
      if (::chown(dir_.c_str(), nobody->pw_uid, nobody->pw_gid) != 0) {
        throw std::runtime_error("cannot give " + dir_ + " to nobody");
      }
    }
    start_watchdog(bin);
    run("cp -a " + cluster_template(bin, owner) + " " + dir_ + "/data", "copying the cluster template");
    for (int attempt = 0;; ++attempt) {
      port_ = free_loopback_port();
      const std::string options = "-c listen_addresses=127.0.0.1 -p " + std::to_string(port_) + " -k " + dir_ +
                                  " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                                  " -c max_connections=200 -c shared_buffers=32MB";
      const int rc = std::system((as_user_ + bin + "/pg_ctl -D " + dir_ + "/data -l " + dir_ +
                                  "/server.log -w -t 60 -o '" + options + "' start > /dev/null 2>&1")
                                     .c_str());
      if (rc == 0) break;
      if (attempt >= 4) throw std::runtime_error("pg_ctl start failed; see " + dir_ + "/server.log");
    }
    admin("CREATE ROLE guarded LOGIN PASSWORD 'hunter2-secret'");
  }

  // A fresh cluster made once per user and server version and copied by every test process after:
  // initdb takes a second, a copy a tenth of one. Made in a dir of its own and renamed into place,
  // so a process never copies a half-made one, whichever of several made it.
  std::string cluster_template(const std::string& bin, uid_t owner) {
    const std::string version = bin.substr(0, bin.rfind('/'));
    const std::string name =
        "/tmp/tf-pg-template-" + std::to_string(owner) + "-" + version.substr(version.rfind('/') + 1);
    struct stat st {};
    if (::stat((name + "/PG_VERSION").c_str(), &st) == 0 && st.st_uid == owner) return name;
    char tmpl[] = "/tmp/tf-pg-making-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("cannot make a temp dir for PostgreSQL's template");
    const std::string making = tmpl;
    if (::chown(making.c_str(), owner, static_cast<gid_t>(-1)) != 0) throw std::runtime_error("chown " + making);
    run(as_user_ + bin + "/initdb -D " + making + "/data -U tunefarm --auth=trust -E UTF8 --locale=C --no-sync > " +
            making + "/initdb.log 2>&1",
        "initdb");
    // One role needs its password over TCP, so tests can give a wrong one; every other connects
    // without one.
    std::ofstream(making + "/data/pg_hba.conf") << "local all all trust\n"
                                                << "host all guarded 127.0.0.1/32 scram-sha-256\n"
                                                << "host all all 127.0.0.1/32 trust\n";
    if (::rename((making + "/data").c_str(), name.c_str()) != 0 && ::stat((name + "/PG_VERSION").c_str(), &st) != 0) {
      throw std::runtime_error("cannot put PostgreSQL's template at " + name);
    }
    std::system(("rm -rf " + making).c_str());
    return name;
  }

  // A process that, told so or once this one's end of the pipe closes (when it is killed), stops
  // the server at once and deletes the cluster. Told, not only closed: a child forked by a test
  // holds the pipe open too.
  void start_watchdog(const std::string& bin) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    const std::string cleanup = "read -r line; " + as_user_ + bin + "/pg_ctl -D " + dir_ +
                                "/data -m immediate -w stop > /dev/null 2>&1; rm -rf " + dir_;
    watchdog_pid_ = ::fork();
    if (watchdog_pid_ < 0) throw std::runtime_error("fork");
    if (watchdog_pid_ == 0) {
      ::dup2(fds[0], 0);
      ::setsid();  // not in the test's process group: a signal to the group leaves the cleanup running
      ::execl("/bin/sh", "sh", "-c", cleanup.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[0]);
    watchdog_fd_ = fds[1];
  }

  void run(const std::string& command, const std::string& what) {
    if (std::system(command.c_str()) != 0) throw std::runtime_error(what + " failed: " + command);
  }

  std::string dir_, as_user_;
  int port_ = 0;
  int databases_ = 0;
  pid_t watchdog_pid_ = -1;
  int watchdog_fd_ = -1;
};

// The backends every database test runs on.
enum class Backend { SQLite, PostgreSQL };

inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::SQLite ? "SQLite" : "PostgreSQL";
}

// A fixture for tests of either backend: fresh_db gives a new database's location, a file path or
// a URL. A PostgreSQL test is skipped, saying why, only when the server's programs are missing.
class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() != Backend::PostgreSQL) return;
    std::string why;
    server_ = PostgresServer::get(&why);
    if (!server_ && PostgresServer::bin_dir().empty()) GTEST_SKIP() << why;
    ASSERT_NE(server_, nullptr) << "cannot start a PostgreSQL server: " << why;
  }

  bool postgres() const { return GetParam() == Backend::PostgreSQL; }

  std::string fresh_db(const std::string& name) {
    if (server_) return server_->fresh_database(name);
    return fresh_path(name);
  }

  PostgresServer* server_ = nullptr;
};

#define TF_BOTH_BACKENDS(Suite)                                                                                       \
  INSTANTIATE_TEST_SUITE_P(                                                                                           \
      , Suite, ::testing::Values(::tf::testing_support::Backend::SQLite, ::tf::testing_support::Backend::PostgreSQL), \
      ::tf::testing_support::backend_name)

}  // namespace tf::testing_support

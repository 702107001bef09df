// Runs the `tunefarm` binary as a separate process and captures what it says.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace {

struct Result {
  int exit_code;
  std::string out, err;
};

Result run_cli(const std::string& args) {
  // One file per process and call: ctest runs test cases as parallel processes.
  static int calls = 0;
  std::string err_file =
      testing::TempDir() + "cli_stderr." + std::to_string(::getpid()) + "." + std::to_string(calls++) + ".txt";
  std::string cmd = std::string(TF_CLI) + " " + args + " 2>" + err_file;
  FILE* p = popen(cmd.c_str(), "r");
  Result r{-1, "", ""};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (FILE* e = fopen(err_file.c_str(), "r")) {
    while ((n = fread(buf.data(), 1, buf.size(), e)) > 0) r.err.append(buf.data(), n);
    fclose(e);
  }
  std::remove(err_file.c_str());
  return r;
}

}  // namespace

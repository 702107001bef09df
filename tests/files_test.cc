// support/files.h: a file's bytes whole (binary, NULs included); a missing file is nullopt, or an
// error naming the path and the reason.
#include <gtest/gtest.h>

#include <fstream>

#include "support/files.h"
#include "tests/test_files.h"

namespace tf {
namespace {

TEST(Files, ReadsEveryByteOfABinaryFile) {
  const std::string dir = testing_support::scratch("bytes");
  const std::string bytes("a\0b\r\n\xff", 6);
  std::ofstream(dir + "/f.bin", std::ios::binary) << bytes;
  EXPECT_EQ(try_read_file(dir + "/f.bin"), bytes);
  EXPECT_EQ(read_file(dir + "/f.bin"), bytes);
  std::ofstream(dir + "/empty", std::ios::binary).flush();
  EXPECT_EQ(try_read_file(dir + "/empty"), std::string());
}

TEST(Files, AMissingFileOrAFolderIsRefusedNamingIt) {
  const std::string dir = testing_support::scratch("missing");
  EXPECT_EQ(try_read_file(dir + "/nothing"), std::nullopt);
  try {
    read_file(dir + "/nothing");
    ADD_FAILURE() << "read_file of a missing file returned";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/nothing"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
  EXPECT_EQ(try_read_file(dir), std::nullopt) << "a folder is not a file";
}

}  // namespace
}  // namespace tf

// The .npy reader (support/npy.h) on headers as NumPy and other writers make them, and on damaged
// ones: each refused naming the file and what is wrong, before anything is allocated for the data.
#include <gtest/gtest.h>

#include <sstream>

#include "support/npy.h"

namespace tf {
namespace {

// A .npy file: `dict` as the header, padded as NumPy pads it, then `data`.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  header.append((prefix + header.size() + 1 + 63) / 64 * 64 - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string floats(const std::vector<float>& v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4); }

NpyArray read_bytes(const std::string& bytes) {
  std::istringstream in(bytes);
  return read_npy(in, bytes.size(), "in.npy");
}

std::string error_of(const std::string& bytes) {
  try {
    read_bytes(bytes);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Npy, HeadersAsPythonWritesThemAreRead) {
  const std::string six = floats({1, 2, 3, 4, 5, 6});
  for (const std::string dict : {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                 "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}",
                                 "{ \"descr\" : \"<f4\" ,\n 'fortran_order':False,'shape':( 2 , 3 , ) , }",
                                 "{'descr': '=f4', 'fortran_order': False, 'shape': (2L, 3L)}"}) {
    const NpyArray a = read_bytes(npy_bytes(dict, six));
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3})) << dict;
    EXPECT_EQ(a.data, (std::vector<float>{1, 2, 3, 4, 5, 6})) << dict;
  }
  EXPECT_EQ(read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", six)).shape, (std::vector<int64_t>{6}));
  const NpyArray scalar = read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats({7})));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.data, std::vector<float>{7});
  const NpyArray empty = read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", ""));
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.data.empty());
  // Version 2.0: a 4-byte header length.
  EXPECT_EQ(read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", six, 2)).data.size(), 6u);
}

// A regular expression read the header before, recursing once per character: a long field
// overflowed the stack (signal 11).
TEST(Npy, AHeaderWithALongFieldIsRefusedNotACrash) {
  const std::string long_descr = "{'descr': '<" + std::string(500000, 'f') + "', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(error_of(npy_bytes(long_descr, floats({1, 2}), 2)),
            "in.npy: dtype (a string of 500001 bytes) is not float32 ('<f4'); convert it with x.astype(numpy.float32)");
  const std::string long_shape = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::string(500000, ' ') + "2,), }";
  EXPECT_EQ(read_bytes(npy_bytes(long_shape, floats({1, 2}), 2)).shape, std::vector<int64_t>{2});
}

TEST(Npy, DamagedHeadersAreRefusedSayingWhere) {
  auto header_error = [](const std::string& dict) { return error_of(npy_bytes(dict, floats({1, 2}))); };
  EXPECT_EQ(header_error("{'descr': '<f4', 'fortran_order': False}"), "in.npy: the .npy header has no 'shape'");
  EXPECT_NE(header_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}").find("'descr' appears twice"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}").find("unknown key 'x'"), std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}").find("'fortran_order' is neither True nor False"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2 1)}").find("expected ','"), std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}").find("not a non-negative integer"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x").find("text after the closing '}'"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}").find("damaged .npy header at header byte"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}").find("extent is too large"),
            std::string::npos);
  std::string rank65 = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i) rank65 += "1,";
  EXPECT_NE(header_error(rank65 + ")}").find("more than 64 extents"), std::string::npos);
}

// A small file may claim any size: the claims are checked against the file's bytes first.
TEST(Npy, SizesAreCheckedAgainstTheFileBeforeAllocating) {
  // 128 bytes claiming 4 GiB of floats: once an allocation of 4 GB.
  const std::string claim = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", floats({1, 2}));
  ASSERT_EQ(claim.size(), 136u);
  EXPECT_EQ(error_of(claim), "in.npy: truncated: shape (1073741824,) needs 4294967296 bytes of data, the file has 8");
  EXPECT_EQ(error_of(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", "")),
            "in.npy: the shape's extents multiply beyond any file");
  // A header length beyond the file.
  std::string long_header = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2}));
  long_header[8] = '\x60';
  long_header[9] = '\xea';
  EXPECT_EQ(error_of(long_header), "in.npy: truncated .npy header: it claims 60000 bytes, the file has 136");
  std::string v2 = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", floats({1, 2}), 2);
  v2[11] = '\x7f';
  EXPECT_NE(error_of(v2).find("in.npy: damaged .npy header: it claims 21307"), std::string::npos) << error_of(v2);
  EXPECT_EQ(error_of(std::string("\x93NUMPY\x01\x00", 8)), "in.npy: truncated .npy header");
}

}  // namespace
}  // namespace tf

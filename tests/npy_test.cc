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

std::string floats(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4);
}

HostTensor read_bytes(const std::string& bytes) {
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
    const HostTensor a = read_bytes(npy_bytes(dict, six));
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3})) << dict;
    EXPECT_EQ(a.as_floats(), (std::vector<float>{1, 2, 3, 4, 5, 6})) << dict;
  }
  EXPECT_EQ(read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", six)).shape,
            (std::vector<int64_t>{6}));
  const HostTensor scalar =
      read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", floats({7})));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.as_floats(), std::vector<float>{7});
  const HostTensor empty = read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", ""));
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.bytes.empty());
  // Version 2.0: a 4-byte header length.
  EXPECT_EQ(read_bytes(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", six, 2)).elements(), 6);
}

// A regular expression read the header before, recursing once per character: a long field
// overflowed the stack (signal 11).
TEST(Npy, AHeaderWithALongFieldIsRefusedNotACrash) {
  const std::string long_descr =
      "{'descr': '<" + std::string(500000, 'f') + "', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(
      error_of(npy_bytes(long_descr, floats({1, 2}), 2)),
      "in.npy: dtype (a string of 500001 bytes) is not supported (float32 '<f4', float64 '<f8', int64 '<i8', int32 "
      "'<i4', int8 '|i1', uint8 '|u1', bool '|b1'); "
      "convert it with x.astype(...)");
  const std::string long_shape =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::string(500000, ' ') + "2,), }";
  EXPECT_EQ(read_bytes(npy_bytes(long_shape, floats({1, 2}), 2)).shape, std::vector<int64_t>{2});
}

TEST(Npy, DamagedHeadersAreRefusedSayingWhere) {
  auto header_error = [](const std::string& dict) { return error_of(npy_bytes(dict, floats({1, 2}))); };
  EXPECT_EQ(header_error("{'descr': '<f4', 'fortran_order': False}"), "in.npy: the .npy header has no 'shape'");
  EXPECT_NE(header_error("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}")
                .find("'descr' appears twice"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}").find("unknown key 'x'"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}")
                .find("'fortran_order' is neither True nor False"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2 1)}").find("expected ','"),
            std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}").find("not a non-negative integer"),
            std::string::npos);
  EXPECT_NE(
      header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x").find("text after the closing '}'"),
      std::string::npos);
  EXPECT_NE(
      header_error("{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}").find("damaged .npy header at header byte"),
      std::string::npos);
  EXPECT_NE(header_error("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}")
                .find("extent is too large"),
            std::string::npos);
  std::string rank65 = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 65; ++i) rank65 += "1,";
  EXPECT_NE(header_error(rank65 + ")}").find("more than 64 extents"), std::string::npos);
}

TEST(Npy, EachModelDtypeRoundTripsAndOthersAreRefusedByName) {
  const std::string path = ::testing::TempDir() + "/npy-dtypes.npy";
  const std::vector<HostTensor> tensors = {
      HostTensor::floats({2}, {1.5f, -2}),    HostTensor::int64s({3}, {-1, 0, int64_t{1} << 40}),
      HostTensor::int32s({1, 2}, {7, -7}),    HostTensor::bools({2, 2}, {true, false, false, true}),
      HostTensor::int8s({3}, {-128, 0, 127}), HostTensor::uint8s({2}, {0, 255})};
  for (const HostTensor& t : tensors) {
    write_npy(path, t);
    const HostTensor back = read_npy(path);
    EXPECT_EQ(back.dtype, t.dtype) << dtype_name(t.dtype);
    EXPECT_EQ(back.shape, t.shape) << dtype_name(t.dtype);
    EXPECT_EQ(back.bytes, t.bytes) << dtype_name(t.dtype);
  }
  // NumPy's own headers for these dtypes.
  EXPECT_EQ(read_bytes(npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
                                 std::string("\x05\0\0\0\0\0\0\0", 8)))
                .as_int64s(),
            std::vector<int64_t>{5});
  EXPECT_EQ(read_bytes(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
                                 std::string("\xff\xff\xff\xff", 4)))
                .as_int32s(),
            std::vector<int32_t>{-1});
  // A bool byte other than 0 reads as 1: kernels take 0 or 1.
  EXPECT_EQ(
      read_bytes(npy_bytes("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", std::string("\0\x01\x07", 3)))
          .bytes,
      (std::vector<uint8_t>{0, 1, 1}));
  EXPECT_EQ(error_of(npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", std::string(15, '\0'))),
            "in.npy: truncated: shape (2,) needs 16 bytes of data, the file has 15");
  auto refusal = [](const std::string& descr) {
    return error_of(
        npy_bytes("{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }", std::string(16, '\0')));
  };
  EXPECT_NE(refusal("<c8").find("dtype '<c8' (complex64) is not supported"), std::string::npos) << refusal("<c8");
  EXPECT_NE(refusal("<f2").find("dtype '<f2' (float16) is not supported"), std::string::npos);
  EXPECT_NE(refusal("<u2").find("dtype '<u2' (uint16) is not supported"), std::string::npos);
  EXPECT_NE(refusal(">f4").find("dtype '>f4' (big-endian float32) is not supported"), std::string::npos);
  EXPECT_NE(refusal("<U3").find("dtype '<U3' (unicode string) is not supported"), std::string::npos);
  EXPECT_NE(refusal("|O").find("dtype '|O' is not supported"), std::string::npos);
  EXPECT_THROW(write_npy(path, HostTensor{DType::Int64, {2}, std::vector<uint8_t>(8)}), NpyError);
}

// A small file may claim any size: the claims are checked against the file's bytes first.
TEST(Npy, SizesAreCheckedAgainstTheFileBeforeAllocating) {
  // 128 bytes claiming 4 GiB of floats: once an allocation of 4 GB.
  const std::string claim =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824,), }", floats({1, 2}));
  ASSERT_EQ(claim.size(), 136u);
  EXPECT_EQ(error_of(claim), "in.npy: truncated: shape (1073741824,) needs 4294967296 bytes of data, the file has 8");
  EXPECT_EQ(error_of(npy_bytes(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", "")),
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

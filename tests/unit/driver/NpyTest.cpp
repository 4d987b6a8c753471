//===- NpyTest.cpp - .npy reader and writer -------------------------------===//

#include "tritonc/driver/Npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace tritonc::driver;

namespace {

NpyArray makeArray(DType T, std::vector<int64_t> Shape) {
  NpyArray A;
  A.Type = T;
  A.Shape = std::move(Shape);
  A.Data.resize(A.numElements() * dtypeSize(T));
  for (size_t I = 0; I < A.Data.size(); ++I)
    A.Data[I] = static_cast<uint8_t>(I * 7 + 3);
  return A;
}

/// Builds a file by hand: magic, version, header length, header, data.
std::string rawNpy(unsigned Major, const std::string &Header, const std::string &Data) {
  std::string S = "\x93NUMPY";
  S += static_cast<char>(Major);
  S += '\0';
  size_t LenBytes = Major == 1 ? 2 : 4;
  for (size_t I = 0; I < LenBytes; ++I)
    S += static_cast<char>((Header.size() >> (8 * I)) & 0xff);
  return S + Header + Data;
}

std::string parseError(const std::string &Bytes) {
  NpyArray A;
  std::string Error;
  EXPECT_FALSE(parseNpy(Bytes, A, Error));
  return Error;
}

} // namespace

TEST(Npy, RoundTripEveryDType) {
  const DType All[] = {DType::F16, DType::F32, DType::F64, DType::I8,  DType::I16, DType::I32,
                       DType::I64, DType::U8,  DType::U16, DType::U32, DType::U64, DType::Bool};
  for (DType T : All) {
    NpyArray A = makeArray(T, {2, 3});
    std::string Bytes = serializeNpy(A);
    // Version 1.0, and the data starts 64-byte aligned like numpy's files.
    EXPECT_EQ(Bytes[6], 1) << dtypeName(T);
    EXPECT_EQ((Bytes.size() - A.Data.size()) % 64, 0u) << dtypeName(T);
    NpyArray B;
    std::string Error;
    ASSERT_TRUE(parseNpy(Bytes, B, Error)) << dtypeName(T) << ": " << Error;
    EXPECT_EQ(B.Type, T);
    EXPECT_EQ(B.Shape, A.Shape);
    EXPECT_EQ(B.Data, A.Data);
  }
}

TEST(Npy, ZeroDimensionalAndEmpty) {
  for (std::vector<int64_t> Shape : {std::vector<int64_t>{}, {0}, {3, 0}, {1, 1, 1, 5}}) {
    NpyArray A = makeArray(DType::F32, Shape);
    NpyArray B;
    std::string Error;
    ASSERT_TRUE(parseNpy(serializeNpy(A), B, Error)) << Error;
    EXPECT_EQ(B.Shape, Shape);
    EXPECT_EQ(B.Data, A.Data);
  }
  EXPECT_EQ(makeArray(DType::F32, {}).numElements(), 1u);
  EXPECT_EQ(makeArray(DType::F32, {}).shapeString(), "()");
  EXPECT_EQ(makeArray(DType::F32, {4}).shapeString(), "(4,)");
  EXPECT_EQ(makeArray(DType::F32, {2, 3}).shapeString(), "(2, 3)");
}

TEST(Npy, WriterHeaderMatchesNumpy) {
  std::string Bytes = serializeNpy(makeArray(DType::I32, {16}));
  EXPECT_NE(Bytes.find("{'descr': '<i4', 'fortran_order': False, 'shape': (16,), }"),
            std::string::npos);
  EXPECT_EQ(Bytes[Bytes.size() - 64 - 1], '\n');
}

TEST(Npy, ReadsVersions2And3AndVariantDescriptors) {
  std::string Data(8, '\x01');
  for (unsigned V : {2u, 3u}) {
    NpyArray A;
    std::string Error;
    ASSERT_TRUE(parseNpy(
        rawNpy(V, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}\n", Data), A, Error))
        << Error;
    EXPECT_EQ(A.Type, DType::F32);
  }
  struct Case {
    const char *Descr;
    DType Expected;
  } Cases[] = {{"|b1", DType::Bool}, {"?", DType::Bool}, {"|i1", DType::I8}, {"<u2", DType::U16},
               {"=i4", DType::I32},  {">u1", DType::U8}, {"<f2", DType::F16}};
  for (const Case &C : Cases) {
    NpyArray A;
    std::string Error;
    std::string Header =
        std::string("{\"descr\": \"") + C.Descr + "\", \"shape\": (), \"fortran_order\": False}";
    std::string Bytes(dtypeSize(C.Expected), '\0');
    ASSERT_TRUE(parseNpy(rawNpy(1, Header, Bytes), A, Error)) << C.Descr << ": " << Error;
    EXPECT_EQ(A.Type, C.Expected) << C.Descr;
  }
}

TEST(Npy, MalformedFiles) {
  std::string Good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_NE(parseError("hello").find("bad magic"), std::string::npos);
  EXPECT_NE(parseError("").find("bad magic"), std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, Good, std::string(7, '\0'))).find("truncated"), std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, Good, std::string(9, '\0'))).find("unexpected data"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, Good, "").substr(0, 12)).find("truncated"), std::string::npos);
  EXPECT_NE(parseError(rawNpy(4, Good, std::string(8, '\0'))).find("version 4.0"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}",
                              std::string(8, '\0')))
                .find("big-endian"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,)}",
                              std::string(8, '\0')))
                .find("unsupported dtype '<c8'"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}",
                              std::string(4, '\0')))
                .find("structured"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,)}",
                              std::string(8, '\0')))
                .find("Fortran order"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '<f4', 'shape': (2,)}", std::string(8, '\0')))
                .find("needs the keys"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                              std::string(8, '\0')))
                .find("malformed"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", ""))
                .find("shape"),
            std::string::npos);
  EXPECT_NE(parseError(rawNpy(1, "not a dict", "")).find("not a Python dict"), std::string::npos);
  // Corrupt header bytes are escaped in messages.
  EXPECT_NE(parseError(rawNpy(1, "{'descr': '<\xe6\n', 'fortran_order': False, 'shape': ()}", ""))
                .find("unsupported dtype '<\\xe6\\x0a'"),
            std::string::npos);
  // A shape whose byte count overflows must be rejected, not wrap around.
  EXPECT_NE(parseError(rawNpy(1,
                              "{'descr': '<f8', 'fortran_order': False, "
                              "'shape': (4294967296, 4294967296)}",
                              ""))
                .find("too large"),
            std::string::npos);
}

TEST(Npy, FilesOnDisk) {
  std::filesystem::path Dir = std::filesystem::temp_directory_path() / "tritonc-npy-test";
  std::filesystem::create_directories(Dir);
  std::string Path = (Dir / "a.npy").string();
  NpyArray A = makeArray(DType::I64, {3});
  std::string Error;
  ASSERT_TRUE(writeNpyFile(Path, A, Error)) << Error;
  NpyArray B;
  ASSERT_TRUE(readNpyFile(Path, B, Error)) << Error;
  EXPECT_EQ(B.Data, A.Data);

  EXPECT_FALSE(readNpyFile((Dir / "missing.npy").string(), B, Error));
  EXPECT_NE(Error.find("cannot open"), std::string::npos);
  EXPECT_FALSE(writeNpyFile((Dir / "no-such-dir" / "x.npy").string(), A, Error));
  EXPECT_NE(Error.find("cannot write"), std::string::npos);
  std::filesystem::remove_all(Dir);
}

TEST(Npy, DTypeNames) {
  DType T;
  ASSERT_TRUE(lookupDTypeName("uint16", T));
  EXPECT_EQ(T, DType::U16);
  EXPECT_STREQ(dtypeDescr(T), "<u2");
  EXPECT_FALSE(lookupDTypeName("complex64", T));
}

TEST(Npy, EveryTruncationIsAnError) {
  std::string Bytes = serializeNpy(makeArray(DType::F64, {3, 2}));
  for (size_t Len = 0; Len < Bytes.size(); ++Len) {
    NpyArray A;
    std::string Error;
    EXPECT_FALSE(parseNpy(std::string_view(Bytes).substr(0, Len), A, Error)) << Len;
    EXPECT_FALSE(Error.empty()) << Len;
  }
}

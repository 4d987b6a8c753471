//===- Npy.h - Reading and writing NumPy .npy files ------------*- C++ -*-===//
//
// `tritonc run` takes kernel buffers as .npy files and writes results back in
// the same format, so that arrays move between NumPy and the interpreter with
// no conversion step. Only what a kernel buffer can be is supported: plain
// little-endian numeric and bool dtypes in C order, any shape (0-d and empty
// included). The reader accepts format versions 1.0, 2.0 and 3.0; the writer
// produces 1.0 (2.0 only if a header ever outgrows 1.0's 64 KiB limit).
//
// Every malformed file is an error message, never a crash or an exception.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tritonc::driver {

/// Element types of the supported arrays.
enum class DType : uint8_t { F16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool };

/// NumPy's name of a dtype: "float32", "int8", "bool", ...
const char *dtypeName(DType T);
/// The .npy descriptor the writer uses: "<f4", "|i1", "|b1", ...
const char *dtypeDescr(DType T);
/// Size in bytes of one element.
size_t dtypeSize(DType T);
/// Parses a NumPy dtype name ("float32", "uint8", "bool"); false if unknown.
bool lookupDTypeName(std::string_view Name, DType &Out);

/// An array: element type, C-order shape (empty for 0-d) and raw
/// little-endian element bytes.
struct NpyArray {
  DType Type = DType::F32;
  std::vector<int64_t> Shape;
  std::vector<uint8_t> Data;

  /// Product of the dimensions (1 for a 0-d array).
  size_t numElements() const;
  /// "(2, 3)" the way NumPy prints shapes.
  std::string shapeString() const;
};

/// Parses the bytes of a .npy file. On failure returns false and sets Error
/// to a sentence that says what is wrong (without the file name).
bool parseNpy(std::string_view Bytes, NpyArray &Out, std::string &Error);

/// Renders an array as a version 1.0 .npy file.
std::string serializeNpy(const NpyArray &A);

/// Largest array data readNpyFile accepts (the interpreter and the device
/// path hold every argument in host memory).
constexpr size_t MaxNpyDataBytes = size_t(4) << 30;
/// Largest .npy header text readNpyFile accepts (NumPy writes ~100 bytes).
constexpr size_t MaxNpyHeaderBytes = size_t(1) << 20;

/// Reads a .npy file, checking the size its header declares against
/// MaxNpyDataBytes before reading the data. Error messages start with the path:
/// "'x.npy': not a .npy file (bad magic string)".
bool readNpyFile(const std::string &Path, NpyArray &Out, std::string &Error);

/// Writes a .npy file; false with Error when the file cannot be written.
bool writeNpyFile(const std::string &Path, const NpyArray &A, std::string &Error);

} // namespace tritonc::driver

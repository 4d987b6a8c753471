//===- Hash.h - SHA-256 ----------------------------------------*- C++ -*-===//
//
// A small, dependency-free SHA-256 (FIPS 180-4) used for content-addressed
// keys such as the kernel cache's. Not constant-time; not for secrets.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tritonc {

/// Incremental SHA-256. Feed bytes with update(), then call final() once.
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void update(const void *Data, size_t Size);
  void update(std::string_view Text) { update(Text.data(), Text.size()); }
  /// Feeds the length (as 8 little-endian bytes) and then the bytes, so that
  /// a sequence of fields hashes unambiguously ("ab","c" differs from "a","bc").
  void updateField(std::string_view Text);
  /// Pads and returns the digest. The object must not be used afterwards.
  Digest final();

  /// Lower-case hexadecimal spelling of a digest (64 characters).
  static std::string toHex(const Digest &D);

private:
  void compress(const uint8_t *Block);
  std::array<uint32_t, 8> State;
  std::array<uint8_t, 64> Buffer{};
  size_t BufferLen = 0;
  uint64_t TotalBytes = 0;
};

/// SHA-256 of Data as 64 lower-case hex characters.
std::string sha256Hex(std::string_view Data);

} // namespace tritonc

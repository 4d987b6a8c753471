//===- KernelCache.cpp - Memory + disk cache of compiled kernels -----------===//
#include "tritonc/runtime/KernelCache.h"

#include "tritonc/support/Hash.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "SourceDigest.h" // generated: TRITONC_SOURCE_DIGEST

#ifndef TRITONC_BUILD_ID
#define TRITONC_BUILD_ID "unknown"
#endif

namespace tritonc::runtime {

namespace {
constexpr std::string_view Magic = "TRITONC-CACHE 1\n";

/// Keys and kinds become file names: allow only [0-9a-zA-Z_-].
bool isSafeName(std::string_view S) {
  if (S.empty() || S.size() > 128)
    return false;
  for (char C : S)
    if (!(std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-'))
      return false;
  return true;
}

std::string header(std::string_view Key, std::string_view Kind, std::string_view Data) {
  std::string H(Magic);
  H += "key " + std::string(Key) + "\n";
  H += "kind " + std::string(Kind) + "\n";
  H += "size " + std::to_string(Data.size()) + "\n";
  H += "sha256 " + sha256Hex(Data) + "\n\n";
  return H;
}

/// Writes all of Data to Fd, retrying short writes.
bool writeAll(int Fd, std::string_view Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data.remove_prefix(size_t(N));
  }
  return true;
}
} // namespace

std::string CacheKeyInputs::compilerVersion() {
  return std::string(TRITONC_VERSION) + "+" + TRITONC_BUILD_ID + ".src" + TRITONC_SOURCE_DIGEST;
}

std::string CacheKeyInputs::key() const {
  Sha256 H;
  H.updateField("tritonc-kernel-cache-key-v1");
  H.updateField(Source);
  H.updateField(std::to_string(Defines.size()));
  for (const auto &[Name, Value] : Defines) {
    H.updateField(Name);
    H.updateField(Value);
  }
  H.updateField(Options);
  H.updateField(Specialization);
  H.updateField(CompilerVersion);
  H.updateField(Target);
  H.updateField(std::to_string(DriverVersion));
  return Sha256::toHex(H.final());
}

std::string KernelCache::defaultDirectory() {
  if (const char *Dir = std::getenv("TRITONC_CACHE_DIR"); Dir && *Dir)
    return Dir;
  if (const char *Home = std::getenv("HOME"); Home && *Home)
    return std::string(Home) + "/.cache/tritonc";
  return "";
}

KernelCache::KernelCache() : KernelCache(defaultDirectory()) {}

KernelCache::KernelCache(std::string Dir) : Directory(std::move(Dir)) { initDisk(); }

void KernelCache::initDisk() {
  if (Directory.empty())
    return;
  std::error_code EC;
  std::filesystem::create_directories(Directory, EC);
  if (EC)
    return;
  // Probe: a directory that exists may still be read-only.
  std::string Probe = Directory + "/.probe-XXXXXX";
  int Fd = ::mkstemp(Probe.data());
  if (Fd < 0)
    return;
  ::close(Fd);
  ::unlink(Probe.c_str());
  DiskEnabled = true;
}

std::string KernelCache::entryPath(const std::string &Key, std::string_view Kind) const {
  return Directory + "/" + Key + "." + std::string(Kind);
}

CacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Stats;
}

void KernelCache::clearMemory() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Memory.clear();
}

std::optional<std::string> KernelCache::readEntry(const std::string &Key, std::string_view Kind) {
  std::ifstream In(entryPath(Key, Kind), std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream SS;
  SS << In.rdbuf();
  std::string File = SS.str();
  auto Corrupt = [&]() -> std::optional<std::string> {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Stats.CorruptEntries;
    return std::nullopt;
  };
  // The header is the fixed text that header() writes for the payload that
  // follows; recomputing it checks magic, key, kind, size and checksum.
  size_t End = File.find("\n\n");
  if (End == std::string::npos || File.compare(0, Magic.size(), Magic) != 0)
    return Corrupt();
  std::string_view Payload = std::string_view(File).substr(End + 2);
  if (File.compare(0, End + 2, header(Key, Kind, Payload)) != 0)
    return Corrupt();
  return std::string(Payload);
}

bool KernelCache::writeEntry(const std::string &Key, std::string_view Kind, std::string_view Data) {
  std::string Tmp = Directory + "/.tmp-" + Key.substr(0, 16) + "-XXXXXX";
  int Fd = ::mkstemp(Tmp.data());
  if (Fd < 0)
    return false;
  // mkstemp creates 0600 files; cache entries are not secret but are only
  // ever read by this user, so the mode is kept.
  bool Ok = writeAll(Fd, header(Key, Kind, Data)) && writeAll(Fd, Data);
  Ok = (::close(Fd) == 0) && Ok;
  if (Ok && ::rename(Tmp.c_str(), entryPath(Key, Kind).c_str()) == 0)
    return true;
  ::unlink(Tmp.c_str());
  return false;
}

std::optional<std::string> KernelCache::lookup(const std::string &Key, std::string_view Kind) {
  std::string MemKey = Key + "." + std::string(Kind);
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (auto It = Memory.find(MemKey); It != Memory.end()) {
      ++Stats.MemoryHits;
      return It->second;
    }
  }
  if (DiskEnabled && isSafeName(Key) && isSafeName(Kind)) {
    if (std::optional<std::string> Data = readEntry(Key, Kind)) {
      std::lock_guard<std::mutex> Lock(Mutex);
      ++Stats.DiskHits;
      Memory.emplace(MemKey, *Data);
      return Data;
    }
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Stats.Misses;
  return std::nullopt;
}

void KernelCache::store(const std::string &Key, std::string_view Kind, std::string_view Data) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Stats.Stores;
    Memory[Key + "." + std::string(Kind)] = std::string(Data);
  }
  if (DiskEnabled && isSafeName(Key) && isSafeName(Kind) && !writeEntry(Key, Kind, Data))
    DiskEnabled = false;
}

} // namespace tritonc::runtime

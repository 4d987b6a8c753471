//===- KernelCache.h - Memory + disk cache of compiled kernels --*- C++ -*-===//
//
// Compiled artifacts (PTX text, later cubins) are cached by a SHA-256 key
// over everything that can change them: the preprocessed source, the
// defines, the compile options, the argument specialization, the compiler
// version and build, the target and the driver version.
//
// The disk cache lives in $TRITONC_CACHE_DIR, else ~/.cache/tritonc. Each
// entry is one file "<key>.<kind>" holding a small header (magic, key,
// kind, size, SHA-256 of the payload) and the payload. Files are written to
// a temporary name in the same directory and renamed, so readers never see
// a partial entry; an entry whose header or checksum does not match is
// treated as a miss. When the directory cannot be created or written, the
// cache silently works in memory only.
//
// The disk level has a size cap ($TRITONC_CACHE_MAX_BYTES, default 2 GiB):
// a store that takes it over the cap removes the least recently used
// entries (a disk hit refreshes an entry's modification time, which is the
// recency the eviction sorts by).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tritonc::runtime {

/// Everything a compiled kernel depends on.
struct CacheKeyInputs {
  std::string Source; ///< Preprocessed source text (or IR text).
  std::map<std::string, std::string> Defines;
  std::string Options;        ///< Canonical string of compile options.
  std::string Specialization; ///< See specializationString().
  std::string CompilerVersion = compilerVersion();
  std::string Target; ///< "sm_90a".
  int DriverVersion = 0;

  /// The key: SHA-256 over all fields (length-prefixed), as 64 hex digits.
  std::string key() const;

  /// TRITONC_VERSION plus the build id ("0.1.0+g1234abc"), so that a new
  /// compiler never reuses an old compiler's artifacts.
  static std::string compilerVersion();
};

/// Counters for tests and `--stats` style reports.
struct CacheStats {
  uint64_t MemoryHits = 0;
  uint64_t DiskHits = 0;
  uint64_t Misses = 0;
  uint64_t Stores = 0;
  uint64_t CorruptEntries = 0; ///< Disk entries ignored as damaged.
};

/// The entries on disk.
struct DiskUsage {
  uint64_t Entries = 0;
  uint64_t Bytes = 0;
};

/// A thread-safe memory + disk cache of compiled artifacts.
class KernelCache {
public:
  /// The cap of a cache without TRITONC_CACHE_MAX_BYTES.
  static constexpr uint64_t DefaultMaxBytes = uint64_t(2) << 30;
  /// Entries larger than this are treated as corrupt (real PTX and cubins
  /// are far smaller), so that a planted huge file cannot exhaust memory.
  static constexpr size_t MaxEntryBytes = size_t(256) << 20;

  /// Uses $TRITONC_CACHE_DIR, else ~/.cache/tritonc.
  KernelCache();
  /// Uses Directory; an empty string means memory only.
  explicit KernelCache(std::string Directory);

  /// The directory of the default cache (may not exist yet); empty when
  /// neither TRITONC_CACHE_DIR nor HOME is set.
  static std::string defaultDirectory();

  /// The artifact of the given kind ("ptx", "cubin") for Key, from memory,
  /// else from disk (then kept in memory).
  std::optional<std::string> lookup(const std::string &Key, std::string_view Kind);
  /// Stores an artifact in memory and, if enabled, on disk. A disk write
  /// failure turns the disk cache off without an error.
  void store(const std::string &Key, std::string_view Kind, std::string_view Data);

  /// Whether entries are written to and read from disk.
  bool diskEnabled() const { return DiskEnabled.load(); }
  const std::string &directory() const { return Directory; }
  CacheStats stats() const;
  /// Empties the memory level (the disk is untouched); for tests.
  void clearMemory();

  /// Entries and bytes of the disk level (zero when it is off).
  DiskUsage diskUsage() const;
  /// Removes every disk entry, the autotuner's records ("autotune/") and
  /// leftover temporary files; returns the number of files removed. The
  /// memory level is emptied too.
  uint64_t clearDisk();
  /// The size cap of the disk level in bytes (0: none).
  uint64_t maxBytes() const { return MaxBytes.load(); }
  void setMaxBytes(uint64_t Bytes) { MaxBytes = Bytes; }

  /// The file of an entry (meaningful when the disk is enabled).
  std::string entryPath(const std::string &Key, std::string_view Kind) const;

private:
  void initDisk();
  std::optional<std::string> readEntry(const std::string &Key, std::string_view Kind);
  bool writeEntry(const std::string &Key, std::string_view Kind, std::string_view Data);
  /// Removes least recently used entries until the disk level fits MaxBytes.
  void evictToFit();

  std::string Directory;
  std::atomic<bool> DiskEnabled{false};
  std::atomic<uint64_t> MaxBytes{DefaultMaxBytes};
  mutable std::mutex Mutex;
  std::map<std::string, std::string> Memory; ///< "<key>.<kind>" -> payload.
  CacheStats Stats;
};

} // namespace tritonc::runtime

#include "tritonc/runtime/KernelCache.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

using namespace tritonc::runtime;
namespace fs = std::filesystem;

namespace {

/// A fresh directory under the system temp dir, removed at the end.
class TempDir {
public:
  TempDir() {
    std::string T = (fs::temp_directory_path() / "tritonc-cache-test-XXXXXX").string();
    Path = ::mkdtemp(T.data()) ? T : "";
  }
  ~TempDir() {
    std::error_code EC;
    fs::remove_all(Path, EC);
  }
  std::string Path;
};

CacheKeyInputs baseInputs() {
  CacheKeyInputs In;
  In.Source = "__global__ void add(float *X) { }";
  In.Defines = {{"BLOCK", "128"}, {"TYPE", "float"}};
  In.Options = "num_warps=4;num_stages=3";
  In.Specialization = "DN";
  In.Target = "sm_90a";
  In.DriverVersion = 13000;
  return In;
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(In), {});
}

} // namespace

TEST(KernelCacheTest, KeyIsHexAndDeterministic) {
  std::string K = baseInputs().key();
  EXPECT_EQ(K.size(), 64u);
  EXPECT_EQ(K.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(K, baseInputs().key());
  EXPECT_NE(CacheKeyInputs::compilerVersion().find(TRITONC_VERSION), std::string::npos);
}

TEST(KernelCacheTest, CompilerVersionNamesTheSourceDigest) {
  // The build's git id stays the same while sources change in a dirty tree;
  // the digest of the sources (cmake/SourceDigest.cmake) does not.
  std::string V = CacheKeyInputs::compilerVersion();
  size_t At = V.rfind(".src");
  ASSERT_NE(At, std::string::npos) << V;
  std::string Digest = V.substr(At + 4);
  EXPECT_EQ(Digest.size(), 16u) << V;
  EXPECT_EQ(Digest.find_first_not_of("0123456789abcdef"), std::string::npos) << V;
}

TEST(KernelCacheTest, EveryInputChangesTheKey) {
  const std::string Base = baseInputs().key();
  auto Changed = [&](auto Mutate) {
    CacheKeyInputs In = baseInputs();
    Mutate(In);
    return In.key();
  };
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.Source += " "; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.Defines["BLOCK"] = "256"; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.Defines["EXTRA"] = ""; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.Options = "num_warps=8;num_stages=3"; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.Specialization = "DD"; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.CompilerVersion += "x"; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.Target = "sm_80"; }));
  EXPECT_NE(Base, Changed([](CacheKeyInputs &In) { In.DriverVersion = 12080; }));
  // Moving text between adjacent fields must change the key too.
  EXPECT_NE(Changed([](CacheKeyInputs &In) { In.Options = "ab", In.Specialization = "c"; }),
            Changed([](CacheKeyInputs &In) { In.Options = "a", In.Specialization = "bc"; }));
}

TEST(KernelCacheTest, MissThenMemoryHitThenDiskHitInANewCache) {
  TempDir Dir;
  const std::string Key = baseInputs().key();
  {
    KernelCache C(Dir.Path);
    ASSERT_TRUE(C.diskEnabled());
    EXPECT_FALSE(C.lookup(Key, "ptx"));
    C.store(Key, "ptx", "PTX TEXT");
    std::optional<std::string> Hit = C.lookup(Key, "ptx");
    ASSERT_TRUE(Hit);
    EXPECT_EQ(*Hit, "PTX TEXT");
    CacheStats S = C.stats();
    EXPECT_EQ(S.Misses, 1u);
    EXPECT_EQ(S.MemoryHits, 1u);
    EXPECT_EQ(S.DiskHits, 0u);
    EXPECT_TRUE(fs::exists(C.entryPath(Key, "ptx")));
  }
  KernelCache C2(Dir.Path);
  std::optional<std::string> Hit = C2.lookup(Key, "ptx");
  ASSERT_TRUE(Hit);
  EXPECT_EQ(*Hit, "PTX TEXT");
  EXPECT_EQ(C2.stats().DiskHits, 1u);
  // Now in memory.
  EXPECT_TRUE(C2.lookup(Key, "ptx"));
  EXPECT_EQ(C2.stats().MemoryHits, 1u);
  // Another kind under the same key is a different entry.
  EXPECT_FALSE(C2.lookup(Key, "cubin"));
  EXPECT_EQ(C2.stats().Misses, 1u);
  // No temporary files are left behind.
  for (const auto &E : fs::directory_iterator(Dir.Path))
    EXPECT_NE(E.path().filename().string().rfind(".tmp", 0), 0u) << E.path();
}

TEST(KernelCacheTest, ChangedInputsMiss) {
  TempDir Dir;
  KernelCache C(Dir.Path);
  C.store(baseInputs().key(), "ptx", "A");
  C.clearMemory();
  CacheKeyInputs In = baseInputs();
  In.Defines["BLOCK"] = "64";
  EXPECT_FALSE(C.lookup(In.key(), "ptx"));
  In = baseInputs();
  In.Options = "num_warps=8";
  EXPECT_FALSE(C.lookup(In.key(), "ptx"));
  In = baseInputs();
  In.CompilerVersion = "0.0.0+other";
  EXPECT_FALSE(C.lookup(In.key(), "ptx"));
  In = baseInputs();
  In.Target = "sm_80";
  EXPECT_FALSE(C.lookup(In.key(), "ptx"));
  EXPECT_EQ(C.stats().Misses, 4u);
  EXPECT_TRUE(C.lookup(baseInputs().key(), "ptx"));
  EXPECT_EQ(C.stats().DiskHits, 1u);
}

TEST(KernelCacheTest, CorruptEntriesAreMisses) {
  TempDir Dir;
  const std::string Key = baseInputs().key();
  const std::string Payload(1000, 'p');
  auto Rewrite = [&](auto Mutate) {
    KernelCache Writer(Dir.Path);
    Writer.store(Key, "ptx", Payload);
    std::string Path = Writer.entryPath(Key, "ptx");
    std::string File = readFile(Path);
    Mutate(File);
    std::ofstream(Path, std::ios::binary | std::ios::trunc) << File;
    KernelCache Reader(Dir.Path);
    std::optional<std::string> Hit = Reader.lookup(Key, "ptx");
    return std::make_pair(Hit, Reader.stats());
  };
  // Truncated payload (a partial write).
  auto [H1, S1] = Rewrite([](std::string &F) { F.resize(F.size() - 10); });
  EXPECT_FALSE(H1);
  EXPECT_EQ(S1.CorruptEntries, 1u);
  EXPECT_EQ(S1.Misses, 1u);
  // A flipped payload byte (checksum mismatch).
  auto [H2, S2] = Rewrite([](std::string &F) { F[F.size() - 1] = 'q'; });
  EXPECT_FALSE(H2);
  EXPECT_EQ(S2.CorruptEntries, 1u);
  // Garbage, an empty file, a header cut in the middle.
  auto [H3, S3] = Rewrite([](std::string &F) { F = "\x01\x02garbage"; });
  EXPECT_FALSE(H3);
  auto [H4, S4] = Rewrite([](std::string &F) { F.clear(); });
  EXPECT_FALSE(H4);
  auto [H5, S5] = Rewrite([](std::string &F) { F.resize(20); });
  EXPECT_FALSE(H5);
  // An entry stored under another key (a renamed file).
  auto [H6, S6] = Rewrite([&](std::string &F) { F.replace(F.find(Key), 1, "x"); });
  EXPECT_FALSE(H6);
  // The unmodified entry is still a hit (the checks above are not vacuous).
  auto [H7, S7] = Rewrite([](std::string &) {});
  ASSERT_TRUE(H7);
  EXPECT_EQ(*H7, Payload);
  EXPECT_EQ(S7.CorruptEntries, 0u);
  // A corrupt entry is replaced by the next store.
  {
    KernelCache C(Dir.Path);
    std::ofstream(C.entryPath(Key, "ptx"), std::ios::trunc) << "junk";
    EXPECT_FALSE(C.lookup(Key, "ptx"));
    C.store(Key, "ptx", "fresh");
  }
  KernelCache C(Dir.Path);
  EXPECT_EQ(C.lookup(Key, "ptx").value_or(""), "fresh");
}

TEST(KernelCacheTest, SpecialAndHugeEntriesAreMissesWithoutBlocking) {
  TempDir Dir;
  const std::string Key = baseInputs().key();
  KernelCache C(Dir.Path);
  ASSERT_TRUE(C.diskEnabled());
  const std::string Path = C.entryPath(Key, "ptx");
  std::filesystem::create_directories(std::filesystem::path(Path).parent_path());
  // A FIFO without a writer: reading it would block forever.
  ASSERT_EQ(::mkfifo(Path.c_str(), 0600), 0);
  EXPECT_FALSE(C.lookup(Key, "ptx"));
  EXPECT_EQ(C.stats().CorruptEntries, 1u);
  std::filesystem::remove(Path);
  // A file past the size limit is refused from its size, before reading.
  { std::ofstream(Path, std::ios::binary) << "x"; }
  std::filesystem::resize_file(Path, KernelCache::MaxEntryBytes + 1);
  EXPECT_FALSE(C.lookup(Key, "ptx"));
  EXPECT_EQ(C.stats().CorruptEntries, 2u);
  // The next store replaces it.
  C.store(Key, "ptx", "fresh");
  KernelCache Again(Dir.Path);
  EXPECT_EQ(Again.lookup(Key, "ptx").value_or(""), "fresh");
}

TEST(KernelCacheTest, ConcurrentWritersLeaveAValidEntry) {
  TempDir Dir;
  const std::string Key = baseInputs().key();
  // Every writer stores the same large artifact, as racing compilers would.
  std::string Payload;
  for (int I = 0; I < 200000; ++I)
    Payload.push_back(char('a' + I % 26));
  std::vector<std::thread> Threads;
  for (int T = 0; T < 8; ++T)
    Threads.emplace_back([&] {
      KernelCache C(Dir.Path);
      for (int I = 0; I < 10; ++I) {
        C.store(Key, "ptx", Payload);
        KernelCache Reader(Dir.Path);
        std::optional<std::string> Hit = Reader.lookup(Key, "ptx");
        // Readers never see a partial entry: either a full hit or nothing.
        if (Hit) {
          EXPECT_EQ(*Hit, Payload);
        }
        EXPECT_EQ(Reader.stats().CorruptEntries, 0u);
      }
    });
  for (std::thread &T : Threads)
    T.join();
  KernelCache C(Dir.Path);
  std::optional<std::string> Hit = C.lookup(Key, "ptx");
  ASSERT_TRUE(Hit);
  EXPECT_EQ(*Hit, Payload);
  EXPECT_EQ(C.stats().DiskHits, 1u);
}

TEST(KernelCacheTest, SharedCacheObjectIsThreadSafe) {
  TempDir Dir;
  KernelCache C(Dir.Path);
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      for (int I = 0; I < 50; ++I) {
        CacheKeyInputs In = baseInputs();
        In.Specialization = std::to_string(I % 10);
        C.store(In.key(), "ptx", In.Specialization);
        EXPECT_EQ(C.lookup(In.key(), "ptx").value_or("?"), In.Specialization) << T;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  CacheStats S = C.stats();
  EXPECT_EQ(S.Stores, 200u);
  EXPECT_EQ(S.MemoryHits, 200u);
}

TEST(KernelCacheTest, UnwritableDirectoryIsMemoryOnly) {
  TempDir Dir;
  // A directory below a regular file can never be created, even by root.
  std::string File = Dir.Path + "/a-file";
  std::ofstream(File) << "x";
  KernelCache C(File + "/cache");
  EXPECT_FALSE(C.diskEnabled());
  const std::string Key = baseInputs().key();
  EXPECT_FALSE(C.lookup(Key, "ptx"));
  C.store(Key, "ptx", "in memory");
  EXPECT_EQ(C.lookup(Key, "ptx").value_or(""), "in memory");
  EXPECT_EQ(C.stats().MemoryHits, 1u);
  EXPECT_FALSE(fs::exists(File + "/cache"));
}

TEST(KernelCacheTest, EmptyDirectoryMeansMemoryOnly) {
  KernelCache C("");
  EXPECT_FALSE(C.diskEnabled());
  C.store("k", "ptx", "v");
  EXPECT_EQ(C.lookup("k", "ptx").value_or(""), "v");
}

TEST(KernelCacheTest, DefaultDirectoryFollowsTheEnvironment) {
  std::string Saved = std::getenv("TRITONC_CACHE_DIR") ? std::getenv("TRITONC_CACHE_DIR") : "";
  bool HadIt = std::getenv("TRITONC_CACHE_DIR") != nullptr;
  TempDir Dir;
  ::setenv("TRITONC_CACHE_DIR", (Dir.Path + "/sub/dir").c_str(), 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), Dir.Path + "/sub/dir");
  {
    KernelCache C;
    EXPECT_TRUE(C.diskEnabled());
    EXPECT_TRUE(fs::is_directory(Dir.Path + "/sub/dir"));
  }
  ::unsetenv("TRITONC_CACHE_DIR");
  std::string Home = std::getenv("HOME") ? std::getenv("HOME") : "";
  if (!Home.empty()) {
    EXPECT_EQ(KernelCache::defaultDirectory(), Home + "/.cache/tritonc");
  }
  if (HadIt)
    ::setenv("TRITONC_CACHE_DIR", Saved.c_str(), 1);
}

namespace {
/// A key made of one repeated hex digit, for entries that tests tell apart.
std::string keyOf(char Digit) { return std::string(64, Digit); }

/// Sets an entry's modification time Age seconds into the past.
void age(const KernelCache &C, const std::string &Key, std::string_view Kind, int Age) {
  fs::last_write_time(C.entryPath(Key, Kind),
                      fs::file_time_type::clock::now() - std::chrono::seconds(Age));
}
} // namespace

TEST(KernelCacheTest, DiskUsageCountsEntriesAndBytes) {
  TempDir D;
  KernelCache C(D.Path);
  C.setMaxBytes(0);
  C.store(keyOf('a'), "ptx", std::string(1000, 'x'));
  C.store(keyOf('b'), "cubin-sm_90a-12080", std::string(3000, 'y'));
  std::ofstream(D.Path + "/unrelated.txt") << "not an entry";
  DiskUsage U = C.diskUsage();
  EXPECT_EQ(U.Entries, 2u);
  // Each file holds a header before its payload.
  EXPECT_GT(U.Bytes, 4000u);
  EXPECT_LT(U.Bytes, 4000u + 2 * 400);
}

TEST(KernelCacheTest, StoresOverTheCapEvictTheLeastRecentlyUsed) {
  TempDir D;
  KernelCache C(D.Path);
  C.setMaxBytes(0);
  std::string Payload(1000, 'p');
  C.store(keyOf('a'), "ptx", Payload);
  C.store(keyOf('b'), "ptx", Payload);
  C.store(keyOf('c'), "ptx", Payload);
  age(C, keyOf('a'), "ptx", 300);
  age(C, keyOf('b'), "ptx", 200);
  age(C, keyOf('c'), "ptx", 100);
  // A disk hit makes 'a' the most recently used (a new cache: no memory level).
  KernelCache Reader(D.Path);
  ASSERT_TRUE(Reader.lookup(keyOf('a'), "ptx"));
  // Room for three entries, not four: the fourth store evicts 'b', now the oldest.
  uint64_t EntryBytes = C.diskUsage().Bytes / 3;
  Reader.setMaxBytes(3 * EntryBytes + EntryBytes / 2);
  Reader.store(keyOf('d'), "ptx", Payload);
  EXPECT_TRUE(fs::exists(C.entryPath(keyOf('a'), "ptx")));
  EXPECT_FALSE(fs::exists(C.entryPath(keyOf('b'), "ptx")));
  EXPECT_TRUE(fs::exists(C.entryPath(keyOf('c'), "ptx")));
  EXPECT_TRUE(fs::exists(C.entryPath(keyOf('d'), "ptx")));
  EXPECT_EQ(Reader.diskUsage().Entries, 3u);
}

TEST(KernelCacheTest, TheCapComesFromTheEnvironment) {
  TempDir D;
  ::setenv("TRITONC_CACHE_MAX_BYTES", "12345", 1);
  EXPECT_EQ(KernelCache(D.Path).maxBytes(), 12345u);
  ::setenv("TRITONC_CACHE_MAX_BYTES", "lots", 1);
  EXPECT_EQ(KernelCache(D.Path).maxBytes(), KernelCache::DefaultMaxBytes);
  ::unsetenv("TRITONC_CACHE_MAX_BYTES");
  EXPECT_EQ(KernelCache(D.Path).maxBytes(), KernelCache::DefaultMaxBytes);
}

TEST(KernelCacheTest, ClearDiskRemovesEntriesAndTunerRecordsOnly) {
  TempDir D;
  KernelCache C(D.Path);
  C.store(keyOf('a'), "ptx", "x");
  C.store(keyOf('a'), "meta", "y");
  fs::create_directories(D.Path + "/autotune");
  std::ofstream(D.Path + "/autotune/choice.json") << "{}";
  std::ofstream(D.Path + "/keep.txt") << "the user's file";
  EXPECT_EQ(C.clearDisk(), 4u); // two entries, the folder and its record
  EXPECT_EQ(C.diskUsage().Entries, 0u);
  EXPECT_FALSE(C.lookup(keyOf('a'), "ptx")); // the memory level is gone too
  EXPECT_TRUE(fs::exists(D.Path + "/keep.txt"));
  EXPECT_FALSE(fs::exists(D.Path + "/autotune"));
}

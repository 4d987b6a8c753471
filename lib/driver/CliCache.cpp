//===- CliCache.cpp - `tritonc cache`: the kernel cache on disk ------------===//
//
//   tritonc cache --info    directory, entries, bytes and the size cap
//   tritonc cache --clear   removes every entry and the autotuner's records
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/Cli.h"
#include "tritonc/runtime/KernelCache.h"

#include <ostream>

namespace tritonc::driver {

namespace {
const char *CacheUsage =
    "usage: tritonc cache --info | --clear\n"
    "\n"
    "The kernel cache of `run --device` and the Python module: compiled\n"
    "PTX, SASS (cubin) and metadata per kernel variant, plus the\n"
    "autotuner's choices, in $TRITONC_CACHE_DIR (default ~/.cache/tritonc).\n"
    "Its size is capped by $TRITONC_CACHE_MAX_BYTES (default 2 GiB; 0: no\n"
    "cap): the least recently used entries are removed first.\n"
    "\n"
    "  --info    print the directory, the number of entries, their size and the cap\n"
    "  --clear   remove every entry\n";

std::string mebibytes(uint64_t Bytes) {
  return std::to_string(Bytes / (1 << 20)) + "." + std::to_string((Bytes % (1 << 20)) * 10 >> 20) +
         " MiB";
}
} // namespace

int runCacheCommand(const std::vector<std::string> &Args, std::ostream &Out, std::ostream &Err) {
  if (Args.size() == 1 && (Args[0] == "--help" || Args[0] == "-h")) {
    Out << CacheUsage;
    return ExitSuccess;
  }
  if (Args.size() != 1 || (Args[0] != "--info" && Args[0] != "--clear")) {
    Err << "tritonc cache: error: expected --info or --clear\n" << CacheUsage;
    return ExitUsage;
  }
  runtime::KernelCache Cache;
  if (Cache.directory().empty()) {
    Err << "tritonc cache: error: no cache directory (set TRITONC_CACHE_DIR or HOME)\n";
    return ExitFailure;
  }
  if (!Cache.diskEnabled()) {
    Err << "tritonc cache: error: the cache directory " << Cache.directory()
        << " cannot be created or written\n";
    return ExitFailure;
  }
  if (Args[0] == "--clear") {
    uint64_t Removed = Cache.clearDisk();
    Out << "removed " << Removed << " files from " << Cache.directory() << "\n";
    return ExitSuccess;
  }
  runtime::DiskUsage U = Cache.diskUsage();
  Out << "directory: " << Cache.directory() << "\n"
      << "entries: " << U.Entries << "\n"
      << "size: " << mebibytes(U.Bytes) << " (" << U.Bytes << " bytes)\n"
      << "cap: "
      << (Cache.maxBytes() ? mebibytes(Cache.maxBytes()) + " (TRITONC_CACHE_MAX_BYTES)"
                           : std::string("none"))
      << "\n";
  return ExitSuccess;
}

} // namespace tritonc::driver

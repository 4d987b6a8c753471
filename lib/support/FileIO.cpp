//===- FileIO.cpp - Bounded reads and atomic writes -----------------------===//
#include "tritonc/support/FileIO.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tritonc {

namespace {

std::string osReason(int Errno) { return std::strerror(Errno); }

std::string tooLarge(const std::string &What, size_t MaxBytes) {
  return What + " is larger than the limit of " + formatByteCount(MaxBytes);
}

bool writeAll(int Fd, std::string_view Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return false;
    if (N == 0) {
      errno = ENOSPC;
      return false;
    }
    Data.remove_prefix(static_cast<size_t>(N));
  }
  return true;
}

} // namespace

std::string formatByteCount(size_t Bytes) {
  if (Bytes >= (size_t(1) << 30) && Bytes % (size_t(1) << 30) == 0)
    return std::to_string(Bytes >> 30) + " GiB";
  if (Bytes >= (size_t(1) << 20) && Bytes % (size_t(1) << 20) == 0)
    return std::to_string(Bytes >> 20) + " MiB";
  if (Bytes >= (size_t(1) << 10) && Bytes % (size_t(1) << 10) == 0)
    return std::to_string(Bytes >> 10) + " KiB";
  return std::to_string(Bytes) + " bytes";
}

BoundedFileReader::~BoundedFileReader() {
  if (Fd >= 0)
    ::close(Fd);
}

bool BoundedFileReader::open(const std::string &P, std::string &Error) {
  Path = P;
  Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0) {
    Error = "cannot open '" + Path + "': " + osReason(errno);
    return false;
  }
  struct stat St;
  if (::fstat(Fd, &St) != 0) {
    Error = "cannot read '" + Path + "': " + osReason(errno);
    return false;
  }
  if (S_ISDIR(St.st_mode)) {
    Error = "cannot read '" + Path + "': " + osReason(EISDIR);
    return false;
  }
  if (S_ISREG(St.st_mode))
    RegularSize = static_cast<long long>(St.st_size);
  // Non-blocking only for the open (a FIFO without a writer); reads block,
  // so that a pipe being filled is read to its end.
  int Flags = ::fcntl(Fd, F_GETFL);
  if (Flags >= 0)
    (void)::fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
  return true;
}

bool BoundedFileReader::read(size_t N, std::string &Out, std::string &Error) {
  char Chunk[1 << 16];
  while (N > 0) {
    ssize_t Got = ::read(Fd, Chunk, std::min(N, sizeof Chunk));
    if (Got < 0 && errno == EINTR)
      continue;
    if (Got < 0) {
      Error = "cannot read '" + Path + "': " + osReason(errno);
      return false;
    }
    if (Got == 0)
      break;
    Out.append(Chunk, static_cast<size_t>(Got));
    N -= static_cast<size_t>(Got);
  }
  return true;
}

bool readFileBounded(const std::string &Path, size_t MaxBytes, std::string &Out,
                     std::string &Error) {
  BoundedFileReader In;
  if (!In.open(Path, Error))
    return false;
  std::string TooLarge = "cannot read '" + Path + "': " + tooLarge("the file", MaxBytes);
  if (In.regularFileSize() >= 0 &&
      static_cast<unsigned long long>(In.regularFileSize()) > MaxBytes) {
    Error = TooLarge;
    return false;
  }
  Out.clear();
  if (!In.read(MaxBytes, Out, Error))
    return false;
  std::string Extra;
  if (!In.read(1, Extra, Error))
    return false;
  if (!Extra.empty()) {
    Error = TooLarge;
    Out.clear();
    return false;
  }
  return true;
}

bool readStreamBounded(std::istream &In, size_t MaxBytes, const std::string &What, std::string &Out,
                       std::string &Error) {
  Out.clear();
  char Chunk[1 << 16];
  while (In) {
    In.read(Chunk, sizeof Chunk);
    size_t N = static_cast<size_t>(In.gcount());
    if (N > MaxBytes - Out.size()) {
      Error = "cannot read " + What + ": " + tooLarge("the input", MaxBytes);
      Out.clear();
      return false;
    }
    Out.append(Chunk, N);
  }
  if (In.bad()) {
    Error = "cannot read " + What;
    return false;
  }
  return true;
}

bool writeTemporaryNextTo(const std::string &Path, std::string_view Bytes, std::string &TempPath,
                          std::string &Error) {
  // A name of our own next to the target (so that rename stays within one
  // file system); O_EXCL never reuses a file someone else made.
  static std::atomic<unsigned> Counter{0};
  int Fd = -1;
  for (unsigned Attempt = 0; Fd < 0 && Attempt < 100; ++Attempt) {
    TempPath = Path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(Counter++);
    Fd = ::open(TempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (Fd < 0 && errno != EEXIST)
      break;
  }
  if (Fd < 0) {
    Error = "cannot write '" + Path + "': " + osReason(errno);
    return false;
  }
  // The data reaches the disk before the rename publishes it: a crash
  // leaves the old file or the new one, never a truncated one.
  int Failure = 0;
  if (!writeAll(Fd, Bytes) || ::fsync(Fd) != 0)
    Failure = errno;
  if (::close(Fd) != 0 && !Failure)
    Failure = errno;
  if (!Failure)
    return true;
  Error = "cannot write '" + Path + "': " + osReason(Failure);
  ::unlink(TempPath.c_str());
  return false;
}

bool writeFileAtomically(const std::string &Path, std::string_view Bytes, std::string &Error) {
  std::string Temp;
  if (!writeTemporaryNextTo(Path, Bytes, Temp, Error))
    return false;
  if (::rename(Temp.c_str(), Path.c_str()) != 0) {
    Error = "cannot write '" + Path + "': " + osReason(errno);
    ::unlink(Temp.c_str());
    return false;
  }
  return true;
}

bool isSameFile(const std::string &A, const std::string &B) {
  struct stat SA, SB;
  return ::stat(A.c_str(), &SA) == 0 && ::stat(B.c_str(), &SB) == 0 && SA.st_dev == SB.st_dev &&
         SA.st_ino == SB.st_ino;
}

} // namespace tritonc

//===- FileIO.h - Bounded reads and atomic writes ---------------*- C++ -*-===//
//
// Every file the tool reads or writes on the user's behalf goes through
// here, so that each read has a size limit checked before the bytes are
// taken in, each write replaces its target atomically (a temporary file in
// the same directory, then rename: a failed write leaves the old file
// whole), and each failure names the operating system's reason.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace tritonc {

/// Reads a file piece by piece, so that a caller can check what the first
/// bytes declare before it reads the rest.
class BoundedFileReader {
public:
  BoundedFileReader() = default;
  BoundedFileReader(const BoundedFileReader &) = delete;
  BoundedFileReader &operator=(const BoundedFileReader &) = delete;
  ~BoundedFileReader();
  /// Opens Path; refuses a directory. A FIFO without a writer does not
  /// block the open.
  bool open(const std::string &Path, std::string &Error);
  /// Appends up to N more bytes to Out (fewer at the end of the file).
  bool read(size_t N, std::string &Out, std::string &Error);
  /// The size of a regular file; -1 for a pipe or a device.
  long long regularFileSize() const { return RegularSize; }

private:
  int Fd = -1;
  std::string Path;
  long long RegularSize = -1;
};

/// Reads the whole file at Path into Out. Refuses a directory, a file
/// larger than MaxBytes (from its size, before reading) and a pipe or
/// device that yields more than MaxBytes. Error is a sentence that starts
/// with the quoted path and ends with the reason.
bool readFileBounded(const std::string &Path, size_t MaxBytes, std::string &Out,
                     std::string &Error);

/// Reads In to its end into Out, refusing more than MaxBytes; What names
/// the stream in the error ("standard input").
bool readStreamBounded(std::istream &In, size_t MaxBytes, const std::string &What, std::string &Out,
                       std::string &Error);

/// Replaces the file at Path with Bytes atomically: the bytes go to a new
/// temporary file next to Path, which is flushed to disk and renamed over
/// Path only once complete. On failure Path is untouched, the temporary is
/// removed and Error says why ("cannot write 'x': No space left on device").
bool writeFileAtomically(const std::string &Path, std::string_view Bytes, std::string &Error);

/// Writes Bytes to a new temporary file next to Path (see
/// writeFileAtomically) and returns its name in TempPath, for callers that
/// rename a whole set of files only once every one is written.
bool writeTemporaryNextTo(const std::string &Path, std::string_view Bytes, std::string &TempPath,
                          std::string &Error);

/// True when A and B exist and are the same file (hard links, symbolic
/// links and different spellings of one path included).
bool isSameFile(const std::string &A, const std::string &B);

/// "1.5 GiB", "64 MiB", "512 bytes": a byte count for limit messages.
std::string formatByteCount(size_t Bytes);

} // namespace tritonc

//===- SourceManager.h - Owns source buffers and maps locations -*- C++ -*-===//
//
// Every piece of text the compiler reads (files, -D values, IR text) is
// registered here once and referred to by a FileId, so that locations stay
// small and diagnostics can print the offending source line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonc {

using FileId = uint32_t;
constexpr FileId InvalidFileId = ~0u;

/// A position in a registered buffer. Lines and columns are 1-based; a
/// default-constructed location is "unknown" and prints without a position.
struct SourceLoc {
  FileId File = InvalidFileId;
  uint32_t Line = 0;
  uint32_t Col = 0;

  bool isValid() const { return File != InvalidFileId && Line != 0; }
  bool operator==(const SourceLoc &) const = default;
};

/// A half-open range of columns on one line (diagnostics underline it). When
/// End is not on the same line as Begin, only Begin is underlined.
struct SourceRange {
  SourceLoc Begin;
  SourceLoc End; ///< One past the last character.

  SourceRange() = default;
  SourceRange(SourceLoc B) : Begin(B), End(B) {
    if (End.isValid())
      ++End.Col;
  }
  SourceRange(SourceLoc B, SourceLoc E) : Begin(B), End(E) {}
  bool isValid() const { return Begin.isValid(); }
};

/// Owns the text of every buffer seen in one compilation.
class SourceManager {
public:
  /// Registers a buffer under a display name (a path, "<command line>", ...).
  FileId addBuffer(std::string Name, std::string Text);
  /// Largest source file addFile accepts; larger inputs are refused rather
  /// than read whole (a hostile `#include "/dev/zero"` must not hang us).
  static constexpr uintmax_t MaxFileSize = 64u << 20;
  /// Reads a regular file from disk; returns nullopt when it cannot be read,
  /// is not a regular file or exceeds MaxFileSize (the reason goes to *Why).
  std::optional<FileId> addFile(const std::string &Path, std::string *Why = nullptr);

  const std::string &getName(FileId Id) const { return Buffers[Id]->Name; }
  /// The text stays at the same address for the manager's lifetime, so views
  /// into it remain valid when more buffers are added.
  const std::string &getText(FileId Id) const { return Buffers[Id]->Text; }
  /// The text of a 1-based line without its newline (empty if out of range).
  std::string_view getLine(FileId Id, uint32_t Line) const;
  /// Maps a byte offset in a buffer to a location.
  SourceLoc getLoc(FileId Id, size_t Offset) const;
  size_t numBuffers() const { return Buffers.size(); }

private:
  struct Buffer {
    std::string Name;
    std::string Text;
    std::vector<size_t> LineStarts; ///< Byte offset of each line's start.
  };
  std::vector<std::unique_ptr<Buffer>> Buffers;
};

} // namespace tritonc

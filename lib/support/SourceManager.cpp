//===- SourceManager.cpp --------------------------------------------------===//
#include "tritonc/support/SourceManager.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tritonc {

FileId SourceManager::addBuffer(std::string Name, std::string Text) {
  auto Owned = std::make_unique<Buffer>();
  Buffer &B = *Owned;
  B.Name = std::move(Name);
  B.Text = std::move(Text);
  B.LineStarts.push_back(0);
  for (size_t I = 0; I < B.Text.size(); ++I)
    if (B.Text[I] == '\n')
      B.LineStarts.push_back(I + 1);
  Buffers.push_back(std::move(Owned));
  return static_cast<FileId>(Buffers.size() - 1);
}

std::optional<FileId> SourceManager::addFile(const std::string &Path, std::string *Why) {
  auto Fail = [&](const std::string &Reason) -> std::optional<FileId> {
    if (Why)
      *Why = Reason;
    return std::nullopt;
  };
  std::error_code EC;
  std::filesystem::file_status Status = std::filesystem::status(Path, EC);
  if (EC)
    return Fail(EC.message());
  if (!std::filesystem::is_regular_file(Status))
    return Fail("not a regular file");
  uintmax_t Size = std::filesystem::file_size(Path, EC);
  if (EC)
    return Fail(EC.message());
  if (Size > MaxFileSize)
    return Fail("file is larger than " + std::to_string(MaxFileSize >> 20) + " MiB");
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Fail("cannot be opened");
  std::ostringstream SS;
  SS << In.rdbuf();
  if (In.bad())
    return Fail("read error");
  return addBuffer(Path, SS.str());
}

std::string_view SourceManager::getLine(FileId Id, uint32_t Line) const {
  if (Id >= Buffers.size())
    return {};
  const Buffer &B = *Buffers[Id];
  if (Line == 0 || Line > B.LineStarts.size())
    return {};
  size_t Start = B.LineStarts[Line - 1];
  size_t End = Line < B.LineStarts.size() ? B.LineStarts[Line] - 1 : B.Text.size();
  if (End > Start && B.Text[End - 1] == '\r')
    --End;
  return std::string_view(B.Text).substr(Start, End - Start);
}

SourceLoc SourceManager::getLoc(FileId Id, size_t Offset) const {
  const Buffer &B = *Buffers[Id];
  auto It = std::upper_bound(B.LineStarts.begin(), B.LineStarts.end(), Offset);
  uint32_t Line = static_cast<uint32_t>(It - B.LineStarts.begin());
  uint32_t Col = static_cast<uint32_t>(Offset - B.LineStarts[Line - 1]) + 1;
  return SourceLoc{Id, Line, Col};
}

} // namespace tritonc

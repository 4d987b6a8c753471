//===- Diagnostics.cpp ----------------------------------------------------===//
#include "tritonc/support/Diagnostics.h"

namespace tritonc {

void reportInternalError(const std::string &Message) { throw InternalError(Message); }

Diagnostic &DiagnosticEngine::error(SourceRange Range, std::string Message) {
  ++NumErrors;
  if (NumErrors > ErrorLimit) {
    Dropped = Diagnostic{};
    return Dropped;
  }
  Diags.push_back(Diagnostic{Severity::Error, Range, std::move(Message), {}});
  return Diags.back();
}

Diagnostic &DiagnosticEngine::warning(SourceRange Range, std::string Message) {
  Diags.push_back(Diagnostic{Severity::Warning, Range, std::move(Message), {}});
  return Diags.back();
}

void DiagnosticEngine::note(SourceRange Range, std::string Message) {
  if (Diags.empty() || NumErrors > ErrorLimit)
    return;
  Diags.back().Notes.push_back(Diagnostic{Severity::Note, Range, std::move(Message), {}});
}

void DiagnosticEngine::internal(std::string Message, SourceRange Range) {
  ++NumErrors;
  Diags.push_back(Diagnostic{Severity::Internal,
                             Range,
                             "internal compiler error: " + Message +
                                 " (please report this bug with the input that triggered it)",
                             {}});
}

static const char *severityName(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Internal:
    return "error";
  }
  return "error";
}

std::string DiagnosticEngine::format(const Diagnostic &D) const {
  std::string Out;
  const SourceLoc &B = D.Range.Begin;
  if (B.isValid() && B.File < SM.numBuffers()) {
    Out += SM.getName(B.File) + ":" + std::to_string(B.Line) + ":" + std::to_string(B.Col) + ": ";
  } else {
    Out += "tritonc: ";
  }
  Out += severityName(D.Sev);
  Out += ": " + D.Message + "\n";
  if (B.isValid() && B.File < SM.numBuffers()) {
    std::string_view Line = SM.getLine(B.File, B.Line);
    Out += "  ";
    Out += Line;
    Out += "\n  ";
    // Keep tabs so that the caret lines up with the source line above it.
    for (uint32_t I = 1; I < B.Col && I - 1 < Line.size(); ++I)
      Out += Line[I - 1] == '\t' ? '\t' : ' ';
    uint32_t Width = 1;
    const SourceLoc &E = D.Range.End;
    if (E.isValid() && E.File == B.File && E.Line == B.Line && E.Col > B.Col)
      Width = E.Col - B.Col;
    Out += '^';
    for (uint32_t I = 1; I < Width; ++I)
      Out += '~';
    Out += "\n";
  }
  for (const Diagnostic &N : D.Notes)
    Out += format(N);
  return Out;
}

std::string DiagnosticEngine::formatAll() const {
  std::string Out;
  for (const Diagnostic &D : Diags)
    Out += format(D);
  if (NumErrors > ErrorLimit)
    Out += "tritonc: note: " + std::to_string(NumErrors - ErrorLimit) +
           " more errors not shown (error limit reached)\n";
  return Out;
}

} // namespace tritonc

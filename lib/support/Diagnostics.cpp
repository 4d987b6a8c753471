//===- Diagnostics.cpp ----------------------------------------------------===//
#include "tritonc/support/Diagnostics.h"

#include <algorithm>

namespace tritonc {

const std::vector<std::string> &remarkPassNames() {
  static const std::vector<std::string> Names = {
      "pipeline",      "dot",           "layout-conversion", "async-rings",
      "tensor-copies", "tensor-stores", "schedule-refills",  "accelerate-dot",
      "mma-in-flight", "tensor-descs",  "accumulator-init",  "warp-specialize"};
  return Names;
}

bool RemarkFilter::wants(RemarkKind Kind, std::string_view Pass) const {
  if (!(Kind == RemarkKind::Missed ? Missed : Passed))
    return false;
  return Passes.empty() || std::find(Passes.begin(), Passes.end(), Pass) != Passes.end();
}

std::optional<RemarkFilter> RemarkFilter::parse(std::string_view Text, std::string &Error) {
  RemarkFilter F;
  size_t Colon = Text.find(':');
  std::string_view Kind = Text.substr(0, Colon);
  if (Kind.empty() || Kind == "missed")
    F.Missed = true;
  else if (Kind == "passed")
    F.Passed = true;
  else if (Kind == "all")
    F.Missed = F.Passed = true;
  else {
    Error = "invalid remark kind '" + std::string(Kind) + "': expected missed, passed or all";
    return std::nullopt;
  }
  if (Colon == std::string_view::npos)
    return F;
  std::string_view List = Text.substr(Colon + 1);
  const std::vector<std::string> &Known = remarkPassNames();
  while (true) {
    size_t Comma = List.find(',');
    std::string Name(List.substr(0, Comma));
    if (std::find(Known.begin(), Known.end(), Name) == Known.end()) {
      Error = "unknown remark pass '" + Name + "': expected one of";
      for (const std::string &K : Known)
        Error += " " + K;
      return std::nullopt;
    }
    F.Passes.push_back(Name);
    if (Comma == std::string_view::npos)
      break;
    List.remove_prefix(Comma + 1);
  }
  return F;
}

std::string RemarkFilter::str() const {
  if (!enabled())
    return "";
  std::string S = Missed && Passed ? "all" : Missed ? "missed" : "passed";
  for (size_t I = 0; I < Passes.size(); ++I)
    S += (I ? "," : ":") + Passes[I];
  return S;
}

void reportInternalError(const std::string &Message) { throw InternalError(Message); }

Diagnostic &DiagnosticEngine::error(SourceRange Range, std::string Message) {
  ++NumErrors;
  LastDropped = NumErrors > ErrorLimit;
  if (LastDropped) {
    Dropped = Diagnostic{};
    return Dropped;
  }
  Diags.push_back(
      Diagnostic{Severity::Error, Range, std::move(Message), {}, RemarkKind::Missed, {}});
  return Diags.back();
}

Diagnostic &DiagnosticEngine::warning(SourceRange Range, std::string Message) {
  // Capped like errors: a large generated file can warn on every line.
  ++NumWarnings;
  LastDropped = NumWarnings > WarningLimit;
  if (LastDropped) {
    Dropped = Diagnostic{};
    return Dropped;
  }
  Diags.push_back(
      Diagnostic{Severity::Warning, Range, std::move(Message), {}, RemarkKind::Missed, {}});
  return Diags.back();
}

void DiagnosticEngine::note(SourceRange Range, std::string Message) {
  // A note belongs to the diagnostic just reported: none if that one was
  // dropped.
  if (Diags.empty() || LastDropped)
    return;
  Diags.back().Notes.push_back(
      Diagnostic{Severity::Note, Range, std::move(Message), {}, RemarkKind::Missed, {}});
}

void DiagnosticEngine::internal(std::string Message, SourceRange Range) {
  ++NumErrors;
  Diags.push_back(Diagnostic{Severity::Internal,
                             Range,
                             "internal compiler error: " + Message +
                                 " (please report this bug with the input that triggered it)",
                             {},
                             RemarkKind::Missed,
                             {}});
}

void DiagnosticEngine::remark(RemarkKind Kind, std::string_view Pass, SourceRange Range,
                              std::string Message) {
  if (!wantsRemark(Kind, Pass))
    return;
  for (const Diagnostic &D : Diags)
    if (D.Sev == Severity::Remark && D.Remark == Kind && D.RemarkPass == Pass &&
        D.Message == Message && D.Range.Begin == Range.Begin)
      return;
  Diags.push_back(
      Diagnostic{Severity::Remark, Range, std::move(Message), {}, Kind, std::string(Pass)});
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
  case Severity::Remark:
    return "remark";
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
  Out += ": " + D.Message;
  // Which pass said it, as the filter spells it (--remarks=missed:NAME).
  if (D.Sev == Severity::Remark)
    Out += std::string(" [") + (D.Remark == RemarkKind::Missed ? "missed" : "passed") + ":" +
           D.RemarkPass + "]";
  Out += "\n";
  if (B.isValid() && B.File < SM.numBuffers()) {
    std::string_view Line = SM.getLine(B.File, B.Line);
    // A long line is clipped to a window around the caret, marked with
    // "..." at each cut: a megabyte-long line must not be echoed per error.
    size_t Caret = std::min<size_t>(B.Col > 0 ? B.Col - 1 : 0, Line.size());
    size_t First = 0;
    if (Line.size() > MaxExcerptColumns && Caret > MaxExcerptColumns / 2)
      First = std::min(Caret - MaxExcerptColumns / 2, Line.size() - MaxExcerptColumns);
    std::string_view Shown = Line.substr(First, MaxExcerptColumns);
    std::string Before = First > 0 ? "..." : "";
    std::string After = First + Shown.size() < Line.size() ? "..." : "";
    Out += "  " + Before;
    Out += Shown;
    Out += After + "\n  " + std::string(Before.size(), ' ');
    // Keep tabs so that the caret lines up with the source line above it.
    for (size_t I = First; I < Caret; ++I)
      Out += Line[I] == '\t' ? '\t' : ' ';
    size_t Width = 1;
    const SourceLoc &E = D.Range.End;
    if (E.isValid() && E.File == B.File && E.Line == B.Line && E.Col > B.Col)
      Width = E.Col - B.Col;
    Width = std::max<size_t>(1, std::min(Width, First + Shown.size() - Caret)); // Caret is shown
    Out += '^';
    Out += std::string(Width - 1, '~');
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
  if (NumWarnings > WarningLimit)
    Out += "tritonc: note: " + std::to_string(NumWarnings - WarningLimit) +
           " more warnings not shown (warning limit reached)\n";
  return Out;
}

} // namespace tritonc

//===- Diagnostics.h - Errors as values ------------------------*- C++ -*-===//
//
// The compiler never exits or aborts on bad input: every problem becomes a
// Diagnostic collected by a DiagnosticEngine, and callers decide how to show
// it. Internal compiler errors (our bugs, not the user's) are a separate
// severity and are raised by throwing InternalError, which the public entry
// points catch and turn into a diagnostic that asks for a bug report.
//
// Remarks are a fourth kind: optimization reports ("loop not pipelined:
// ...") at the source location of the IR instruction they are about. They
// are recorded only when a RemarkFilter asks for them and never count as
// errors or warnings.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/support/SourceManager.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tritonc {

enum class Severity { Error, Warning, Note, Internal, Remark };

/// What an optimization remark reports.
enum class RemarkKind {
  Missed, ///< An optimization was declined, and why.
  Passed, ///< An optimization was applied.
};

struct Diagnostic {
  Severity Sev = Severity::Error;
  SourceRange Range;
  std::string Message;
  std::vector<Diagnostic> Notes; ///< Attached notes ("declared here").
  /// Remarks only: the kind and the pass or back-end step that made it.
  RemarkKind Remark = RemarkKind::Missed;
  std::string RemarkPass;
};

/// Which remarks a compilation records: `--remarks[=missed|passed|all]`,
/// optionally restricted to some passes (`--remarks=all:pipeline,async-copy`).
/// The default records none.
struct RemarkFilter {
  bool Missed = false;
  bool Passed = false;
  /// The pass names to report; empty: every pass.
  std::vector<std::string> Passes;

  bool enabled() const { return Missed || Passed; }
  bool wants(RemarkKind Kind, std::string_view Pass) const;
  /// Parses "missed", "passed", "all" or "" (missed), each optionally
  /// followed by ":NAME,NAME,..."; nullopt with the reason in Error.
  static std::optional<RemarkFilter> parse(std::string_view Text, std::string &Error);
  /// The canonical text parse() reads back ("" when disabled).
  std::string str() const;
};

/// The names of the passes and back-end steps that emit remarks, in
/// pipeline order (for --help and for checking a filter).
const std::vector<std::string> &remarkPassNames();

/// Thrown for internal compiler errors. Never thrown for user mistakes.
class InternalError : public std::runtime_error {
public:
  explicit InternalError(const std::string &What) : std::runtime_error(What) {}
};

/// Raises an internal compiler error; use where an invariant is broken.
[[noreturn]] void reportInternalError(const std::string &Message);

/// Collects diagnostics for one compilation.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &SM) : SM(SM) {}

  /// Records an error and returns it so that notes can be attached.
  Diagnostic &error(SourceRange Range, std::string Message);
  Diagnostic &warning(SourceRange Range, std::string Message);
  /// Adds a note to the most recent diagnostic.
  void note(SourceRange Range, std::string Message);
  /// Records an internal error (message is wrapped with "please report").
  void internal(std::string Message, SourceRange Range = {});

  /// Selects the remarks to record (none by default).
  void setRemarkFilter(RemarkFilter F) { Remarks = std::move(F); }
  const RemarkFilter &remarkFilter() const { return Remarks; }
  /// Whether a remark of this kind from Pass would be recorded; callers
  /// test it before composing an expensive message.
  bool wantsRemark(RemarkKind Kind, std::string_view Pass) const {
    return Remarks.wants(Kind, Pass);
  }
  /// Records a remark if the filter wants it. The same remark at the same
  /// place is recorded once (a pass may visit a loop more than once).
  void remark(RemarkKind Kind, std::string_view Pass, SourceRange Range, std::string Message);

  bool hasErrors() const { return NumErrors != 0; }
  unsigned numErrors() const { return NumErrors; }
  /// After this many errors (warnings: the same number, separately),
  /// further ones are counted but not recorded.
  void setErrorLimit(unsigned Limit) { ErrorLimit = WarningLimit = Limit; }
  bool reachedErrorLimit() const { return NumErrors >= ErrorLimit; }

  const std::vector<Diagnostic> &diagnostics() const { return Diags; }
  const SourceManager &getSourceManager() const { return SM; }

  /// Renders one diagnostic as "file:line:col: error: msg", the source line
  /// and a caret line, followed by its notes.
  std::string format(const Diagnostic &D) const;
  /// Renders every recorded diagnostic, in order.
  std::string formatAll() const;

private:
  const SourceManager &SM;
  std::vector<Diagnostic> Diags;
  unsigned NumErrors = 0;
  unsigned ErrorLimit = 20;
  unsigned NumWarnings = 0;
  unsigned WarningLimit = 20;
  bool LastDropped = false; ///< The latest error or warning was not recorded.
  Diagnostic Dropped;       ///< Sink returned once a limit is reached.
  RemarkFilter Remarks;

public:
  /// Source lines longer than this are shown as a window around the caret.
  static constexpr size_t MaxExcerptColumns = 160;
};

} // namespace tritonc

//===- Diagnostics.h - Errors as values ------------------------*- C++ -*-===//
//
// The compiler never exits or aborts on bad input: every problem becomes a
// Diagnostic collected by a DiagnosticEngine, and callers decide how to show
// it. Internal compiler errors (our bugs, not the user's) are a separate
// severity and are raised by throwing InternalError, which the public entry
// points catch and turn into a diagnostic that asks for a bug report.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/support/SourceManager.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace tritonc {

enum class Severity { Error, Warning, Note, Internal };

struct Diagnostic {
  Severity Sev = Severity::Error;
  SourceRange Range;
  std::string Message;
  std::vector<Diagnostic> Notes; ///< Attached notes ("declared here").
};

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

public:
  /// Source lines longer than this are shown as a window around the caret.
  static constexpr size_t MaxExcerptColumns = 160;
};

} // namespace tritonc

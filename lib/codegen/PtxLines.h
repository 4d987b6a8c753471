//===- PtxLines.h - Reading emitted PTX lines back --------------------------===//
//
// The rewrite of emitted function bodies (EarlyRefill.cpp) reads the lines
// the builder wrote: instructions are
// tab-indented, maybe guarded (`@%p1 ...`), labels end in ':' at column 0,
// and virtual registers are '%', lowercase letters, then digits.
//
//===----------------------------------------------------------------------===//
#ifndef TRITONC_LIB_CODEGEN_PTXLINES_H
#define TRITONC_LIB_CODEGEN_PTXLINES_H

#include <string_view>

namespace tritonc::codegen::ptxlines {

/// The instruction text of an emitted line: no indentation, no guard.
inline std::string_view instructionText(std::string_view Line) {
  size_t Start = Line.find_first_not_of(" \t");
  if (Start == std::string_view::npos)
    return {};
  Line.remove_prefix(Start);
  if (Line.starts_with('@')) {
    size_t Space = Line.find(' ');
    Line.remove_prefix(Space == std::string_view::npos ? Line.size() : Space + 1);
  }
  return Line;
}

inline bool isComment(std::string_view Line) { return instructionText(Line).starts_with("//"); }

inline bool isLabel(std::string_view Line) {
  return !Line.empty() && Line[0] != '\t' && Line.back() == ':';
}

/// The virtual register at the start of S ("%rd12" of "%rd12, ..."), or
/// empty (also for special registers such as %tid.x).
inline std::string_view leadingRegister(std::string_view S) {
  if (!S.starts_with('%'))
    return {};
  size_t E = 1;
  while (E < S.size() && S[E] >= 'a' && S[E] <= 'z')
    ++E;
  size_t Letters = E;
  while (E < S.size() && S[E] >= '0' && S[E] <= '9')
    ++E;
  return Letters > 1 && E > Letters ? S.substr(0, E) : std::string_view();
}

} // namespace tritonc::codegen::ptxlines

#endif

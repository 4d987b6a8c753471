//===- TuningSpace.cpp - Configuration spaces from -D tuning lists --------===//
//
// A -D value that starts with '[' is a tuning list and must be a well-formed
// "[v1, v2, ...]" (entries trimmed, non-empty; commas inside nested
// brackets or parentheses do not split entries). Any other value, including
// one that merely contains brackets such as "x[0]", is a fixed value.
//
//===----------------------------------------------------------------------===//
#include "tritonc/lang/Preprocessor.h"

#include <optional>

namespace tritonc {

namespace {

std::string_view trim(std::string_view S) {
  size_t B = S.find_first_not_of(" \t\r\n");
  if (B == std::string_view::npos)
    return {};
  size_t E = S.find_last_not_of(" \t\r\n");
  return S.substr(B, E - B + 1);
}

/// Splits "[a, b, c]" into its entries. Returns an error message on failure.
std::optional<std::string> parseList(std::string_view V, std::vector<std::string> &Entries) {
  // The '[' at the start must be closed by the ']' at the very end.
  int Depth = 0;
  size_t Close = std::string_view::npos;
  for (size_t I = 0; I < V.size(); ++I) {
    if (V[I] == '[' || V[I] == '(')
      ++Depth;
    else if (V[I] == ']' || V[I] == ')')
      --Depth;
    if (Depth == 0) {
      Close = I;
      break;
    }
  }
  if (Close == std::string_view::npos || V[Close] != ']')
    return std::string("missing ']'");
  if (Close + 1 != V.size())
    return "unexpected '" + std::string(V.substr(Close + 1)) + "' after ']'";
  std::string_view Inner = V.substr(1, V.size() - 2);
  if (trim(Inner).empty())
    return std::string("the list is empty");
  size_t Start = 0;
  Depth = 0;
  for (size_t I = 0; I <= Inner.size(); ++I) {
    if (I < Inner.size()) {
      char C = Inner[I];
      if (C == '[' || C == '(')
        ++Depth;
      else if (C == ']' || C == ')')
        --Depth;
      if (C != ',' || Depth != 0)
        continue;
    }
    std::string_view Entry = trim(Inner.substr(Start, I - Start));
    if (Entry.empty())
      return "entry " + std::to_string(Entries.size() + 1) + " is empty";
    Entries.emplace_back(Entry);
    Start = I + 1;
  }
  return std::nullopt;
}

} // namespace

bool TuningSpace::init(const DefineList &Defines, DiagnosticEngine &Diags) {
  Fixed.clear();
  Lists.clear();
  Order.clear();
  Size = 1;
  bool Ok = true;
  for (const auto &[Name, Value] : Defines) {
    std::string_view V = trim(Value);
    if (V.empty() || V.front() != '[') {
      Order.push_back(Slot{false, Fixed.size()});
      Fixed.emplace_back(Name, Value);
      continue;
    }
    std::vector<std::string> Entries;
    if (std::optional<std::string> Err = parseList(V, Entries)) {
      Diags.error(SourceRange(), "malformed tuning list -D" + Name + "=" + Value + ": " + *Err +
                                     " (expected [v1, v2, ...])");
      Ok = false;
      continue;
    }
    if (Size > MaxConfigurations / Entries.size()) {
      // Checked per list, before the product can overflow.
      Diags.error(SourceRange(),
                  "the tuning lists give more than " + std::to_string(MaxConfigurations) +
                      " configurations (the limit is " + std::to_string(MaxConfigurations) + ")");
      Ok = false;
      break;
    }
    Size *= Entries.size();
    Order.push_back(Slot{true, Lists.size()});
    Lists.emplace_back(Name, std::move(Entries));
  }
  if (!Ok) {
    Fixed.clear();
    Lists.clear();
    Order.clear();
    Size = 1;
  }
  return Ok;
}

size_t TuningSpace::size() const { return Size; }

DefineList TuningSpace::configuration(size_t Index) const {
  if (Index >= Size)
    reportInternalError("tuning configuration index out of range");
  // Mixed-radix digits of Index, the last list being the fastest digit.
  std::vector<size_t> Choice(Lists.size());
  for (size_t L = Lists.size(); L-- > 0;) {
    size_t N = Lists[L].second.size();
    Choice[L] = Index % N;
    Index /= N;
  }
  DefineList Out;
  Out.reserve(Order.size());
  for (const Slot &S : Order) {
    if (S.IsList)
      Out.emplace_back(Lists[S.Index].first, Lists[S.Index].second[Choice[S.Index]]);
    else
      Out.push_back(Fixed[S.Index]);
  }
  return Out;
}

} // namespace tritonc

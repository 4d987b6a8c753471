//===- TensorMapSpec.cpp - Tensor maps the launcher builds for TMA ---------===//
//
// The text form, one line:
//
//   base=0 dtype=6 elem=2 dims=(1*p3),? strides=(1*p5) box=64,64 swizzle=128
//
// followed by " elemstrides=1,2" where the map has traversal strides.
//
// A polynomial is its terms between parentheses, joined by '+'; a term is
// its coefficient followed by one "*pN" per parameter factor, so "()" is 0,
// "(2*p3*p4+-1)" is 2*p3*p4 - 1, and every term is written out (a zero
// coefficient included) for an exact round trip. An unbounded dimension is
// '?'. Lists are comma-separated and may be empty.
//
//===----------------------------------------------------------------------===//
#include "tritonc/support/TensorMapSpec.h"

#include <charconv>

namespace tritonc {

namespace {

void appendPoly(std::string &Out, const ParamPoly &P) {
  Out += '(';
  for (size_t I = 0; I < P.size(); ++I) {
    if (I)
      Out += '+';
    Out += std::to_string(P[I].Coef);
    for (unsigned Param : P[I].Params) {
      Out += "*p";
      Out += std::to_string(Param);
    }
  }
  Out += ')';
}

/// A cursor over the text that parse() consumes from the front; every
/// accessor fails (returns false) without consuming on a mismatch.
class Reader {
public:
  explicit Reader(std::string_view Text) : Rest(Text) {}

  bool atEnd() const { return Rest.empty(); }
  bool peek(char C) const { return !Rest.empty() && Rest.front() == C; }

  bool consume(std::string_view Literal) {
    if (Rest.substr(0, Literal.size()) != Literal)
      return false;
    Rest.remove_prefix(Literal.size());
    return true;
  }

  /// A decimal number of type T (from_chars: no '+', no spaces).
  template <typename T> bool number(T &Out) {
    auto [End, Ec] = std::from_chars(Rest.data(), Rest.data() + Rest.size(), Out);
    if (Ec != std::errc())
      return false;
    Rest.remove_prefix(size_t(End - Rest.data()));
    return true;
  }

  bool poly(ParamPoly &Out) {
    Out.clear();
    if (!consume("("))
      return false;
    if (consume(")"))
      return true;
    do {
      ParamTerm T;
      if (!number(T.Coef))
        return false;
      while (consume("*p")) {
        unsigned Param = 0;
        if (!number(Param))
          return false;
        T.Params.push_back(Param);
      }
      Out.push_back(std::move(T));
    } while (consume("+"));
    return consume(")");
  }

  /// A comma-separated list ending at a space or at the end of the text;
  /// Item reads one element.
  template <typename ItemFn> bool list(ItemFn &&Item) {
    if (atEnd() || peek(' '))
      return true;
    do {
      if (!Item())
        return false;
    } while (consume(","));
    return atEnd() || peek(' ');
  }

  /// A list of unsigned numbers, appended to Out.
  bool numbers(std::vector<unsigned> &Out) {
    return list([&] {
      unsigned N = 0;
      if (!number(N))
        return false;
      Out.push_back(N);
      return true;
    });
  }

private:
  std::string_view Rest;
};

} // namespace

std::string TensorMapSpec::str() const {
  std::string Out = "base=" + std::to_string(BaseParam) + " dtype=" + std::to_string(DataType) +
                    " elem=" + std::to_string(ElemBytes) + " dims=";
  for (size_t I = 0; I < Dims.size(); ++I) {
    if (I)
      Out += ',';
    if (Dims[I])
      appendPoly(Out, *Dims[I]);
    else
      Out += '?';
  }
  Out += " strides=";
  for (size_t I = 0; I < Strides.size(); ++I) {
    if (I)
      Out += ',';
    appendPoly(Out, Strides[I]);
  }
  Out += " box=";
  for (size_t I = 0; I < Box.size(); ++I) {
    if (I)
      Out += ',';
    Out += std::to_string(Box[I]);
  }
  Out += " swizzle=" + std::to_string(SwizzleBytes);
  if (!ElementStrides.empty()) {
    Out += " elemstrides=";
    for (size_t I = 0; I < ElementStrides.size(); ++I)
      Out += (I ? "," : "") + std::to_string(ElementStrides[I]);
  }
  return Out;
}

std::optional<TensorMapSpec> TensorMapSpec::parse(std::string_view Text) {
  TensorMapSpec S;
  Reader In(Text);
  if (!In.consume("base=") || !In.number(S.BaseParam) || !In.consume(" dtype=") ||
      !In.number(S.DataType) || !In.consume(" elem=") || !In.number(S.ElemBytes) ||
      !In.consume(" dims="))
    return std::nullopt;
  bool Ok = In.list([&] {
    if (In.consume("?")) {
      S.Dims.emplace_back();
      return true;
    }
    ParamPoly P;
    if (!In.poly(P))
      return false;
    S.Dims.emplace_back(std::move(P));
    return true;
  });
  if (!Ok || !In.consume(" strides="))
    return std::nullopt;
  Ok = In.list([&] {
    ParamPoly P;
    if (!In.poly(P))
      return false;
    S.Strides.push_back(std::move(P));
    return true;
  });
  if (!Ok || !In.consume(" box="))
    return std::nullopt;
  if (!In.numbers(S.Box) || !In.consume(" swizzle=") || !In.number(S.SwizzleBytes))
    return std::nullopt;
  if (In.consume(" elemstrides=") && (!In.numbers(S.ElementStrides) || S.ElementStrides.empty()))
    return std::nullopt;
  if (!In.atEnd())
    return std::nullopt;
  return S;
}

std::optional<int64_t> evaluate(const ParamPoly &P, const std::vector<int64_t> &Values) {
  return evaluateWith(P, [&](unsigned I) -> std::optional<int64_t> {
    if (I >= Values.size())
      return std::nullopt;
    return Values[I];
  });
}

} // namespace tritonc

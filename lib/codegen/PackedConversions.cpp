//===- PackedConversions.cpp - Pairs of f32 -> f16 conversions in one cvt ----===//
//
// A tile converted from f32 to f16 (or bf16) and then stored packed, two
// halves to a 32-bit word (the matmul epilogue), lowers to one
// `cvt.rn.f16.f32` per element and one `mov.b32 %r, {lo, hi}` per pair.
// `cvt.rn.f16x2.f32 %r, hi, lo` does both at once. ptxas emits the same
// packing instruction for either form, but the 128 conversions and 64 movs
// of a 128 x 256 epilogue cost it 2.5% of its time on that matmul.
//
// This rewrites the finished body: a `mov.b32` that packs two halves, each
// written by an unguarded `cvt.rn.{f16,bf16}.f32` of the same type and used
// nowhere else, becomes the packed conversion, and the two conversions go.
// It requires straight-line code from the conversions to the mov that never
// names their f32 sources again, so that the sources still hold the values
// the conversions read.
//
//===----------------------------------------------------------------------===//

#include "PackedConversions.h"
#include "PtxLines.h"

#include "tritonc/target/ptx/PTXBuilder.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace tritonc::codegen {

namespace {

/// Takes a register and then the text Sep off the front of S; empty (S
/// unchanged) when S does not start that way.
std::string_view takeRegister(std::string_view &S, std::string_view Sep) {
  std::string_view Reg = ptxlines::leadingRegister(S);
  if (Reg.empty() || !S.substr(Reg.size()).starts_with(Sep))
    return {};
  S.remove_prefix(Reg.size() + Sep.size());
  return Reg;
}

struct Conversion {
  size_t Line;
  std::string_view Source;
  bool BF16;
};

/// `\tcvt.rn.f16.f32 %hN, %fM;` (or bf16): its destination and conversion.
std::optional<std::pair<std::string_view, Conversion>> parseConversion(std::string_view Line,
                                                                       size_t Index) {
  for (bool BF16 : {false, true}) {
    std::string_view Rest = Line;
    if (!Rest.starts_with(BF16 ? "\tcvt.rn.bf16.f32 " : "\tcvt.rn.f16.f32 "))
      continue;
    Rest.remove_prefix(Rest.find(' ') + 1);
    std::string_view Dst = takeRegister(Rest, ", ");
    std::string_view Src = Dst.empty() ? Dst : takeRegister(Rest, ";");
    if (Src.empty() || !Rest.empty())
      return std::nullopt;
    return std::make_pair(Dst, Conversion{Index, Src, BF16});
  }
  return std::nullopt;
}

/// `\tmov.b32 %rN, {%hA, %hB};`: its destination and the low and high halves.
std::optional<std::array<std::string_view, 3>> parsePack(std::string_view Line) {
  std::string_view Rest = Line;
  if (!Rest.starts_with("\tmov.b32 "))
    return std::nullopt;
  Rest.remove_prefix(Rest.find(' ') + 1);
  std::string_view Dst = takeRegister(Rest, ", {");
  std::string_view Lo = Dst.empty() ? Dst : takeRegister(Rest, ", ");
  std::string_view Hi = Lo.empty() ? Lo : takeRegister(Rest, "};");
  if (Hi.empty() || !Rest.empty())
    return std::nullopt;
  return std::array<std::string_view, 3>{Dst, Lo, Hi};
}

/// Answers "are the lines strictly between From and To straight-line code
/// that never names register Reg?" from one pass over the body: the last
/// line that breaks straight-line code before each line, and the lines that
/// name each register asked about.
class StraightLineIndex {
public:
  StraightLineIndex(const ptx::PTXFunctionBuilder &B,
                    const std::unordered_map<std::string_view, Conversion> &Conversions) {
    for (const auto &[Dst, C] : Conversions)
      Namings.try_emplace(C.Source);
    LastBreak.resize(B.bodySize());
    size_t Last = NoBreak;
    for (size_t I = 0; I < B.bodySize(); ++I) {
      std::string_view Line = B.bodyLine(I);
      if (!Line.empty() && (Line[0] != '\t' || Line.find("bra ") != std::string_view::npos ||
                            Line.find("ret;") != std::string_view::npos))
        Last = I;
      LastBreak[I] = Last;
      for (size_t P = Line.find('%'); P != std::string_view::npos; P = Line.find('%', P + 1))
        if (auto It = Namings.find(ptxlines::leadingRegister(Line.substr(P)));
            It != Namings.end() && (It->second.empty() || It->second.back() != I))
          It->second.push_back(I);
    }
  }

  bool untouchedBetween(size_t From, size_t To, std::string_view Reg) const {
    if (To <= From + 1)
      return true;
    if (LastBreak[To - 1] != NoBreak && LastBreak[To - 1] > From)
      return false;
    const std::vector<size_t> &Lines = Namings.at(Reg);
    auto Next = std::upper_bound(Lines.begin(), Lines.end(), From);
    return Next == Lines.end() || *Next >= To;
  }

private:
  static constexpr size_t NoBreak = ~size_t(0);
  std::vector<size_t> LastBreak;
  std::unordered_map<std::string_view, std::vector<size_t>> Namings;
};

} // namespace

void packConvertedPairs(ptx::PTXFunctionBuilder &B) {
  std::unordered_map<std::string_view, Conversion> Conversions; // by destination
  std::unordered_map<std::string_view, unsigned> HalfMentions;
  for (size_t I = 0; I < B.bodySize(); ++I) {
    std::string_view Line = B.bodyLine(I);
    if (auto C = parseConversion(Line, I))
      Conversions.emplace(C->first, C->second);
    for (size_t P = Line.find("%h"); P != std::string_view::npos; P = Line.find("%h", P + 1))
      ++HalfMentions[ptxlines::leadingRegister(Line.substr(P))];
  }
  if (Conversions.empty())
    return;
  StraightLineIndex Index(B, Conversions);
  // The rewrites: line -> new text ("" drops it). Views into the body stay
  // valid until they are applied.
  std::vector<std::pair<size_t, std::string>> Rewrites;
  for (size_t I = 0; I < B.bodySize(); ++I) {
    auto Pack = parsePack(B.bodyLine(I));
    if (!Pack)
      continue;
    auto [Dst, Lo, Hi] = *Pack;
    auto L = Conversions.find(Lo), H = Conversions.find(Hi);
    if (Lo == Hi || L == Conversions.end() || H == Conversions.end() ||
        L->second.BF16 != H->second.BF16 || HalfMentions[Lo] != 2 || HalfMentions[Hi] != 2 ||
        L->second.Line > I || H->second.Line > I ||
        !Index.untouchedBetween(L->second.Line, I, L->second.Source) ||
        !Index.untouchedBetween(H->second.Line, I, H->second.Source))
      continue;
    std::string Op = L->second.BF16 ? "cvt.rn.bf16x2.f32 " : "cvt.rn.f16x2.f32 ";
    Rewrites.emplace_back(I, "\t" + Op + std::string(Dst) + ", " + std::string(H->second.Source) +
                                 ", " + std::string(L->second.Source) + ";");
    Rewrites.emplace_back(L->second.Line, "");
    Rewrites.emplace_back(H->second.Line, "");
  }
  for (auto &[Line, Text] : Rewrites)
    B.setBodyLine(Line, std::move(Text));
}

} // namespace tritonc::codegen

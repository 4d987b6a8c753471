//===- Launch.cpp - Binding kernel arguments for the interpreter ----------===//

#include "tritonc/driver/Launch.h"

#include "tritonc/lang/Parser.h"
#include "tritonc/support/FileIO.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <system_error>

#include <unistd.h>

namespace tritonc::driver {

std::string KernelParam::typeString() const {
  return CType ? typeSpecToString(*CType) : IRType->str();
}

std::string KernelSignature::str() const {
  std::string S = Name + "(";
  for (size_t I = 0; I < Params.size(); ++I) {
    if (I)
      S += ", ";
    S += Params[I].typeString() + " " + Params[I].Name;
  }
  return S + ")";
}

const ir::Function *selectKernel(const ir::Module &M, const std::string &Name,
                                 DiagnosticEngine &Diags, const ast::TranslationUnit *TU) {
  const auto &Fns = M.functions();
  if (Name.empty() && Fns.size() == 1)
    return Fns.front().get();
  for (const auto &F : Fns)
    if (Name.empty() ? F->attrs().IsKernel : F->getName() == Name)
      return F.get();
  std::string Names;
  for (const auto &F : Fns)
    Names += (Names.empty() ? "'" : ", '") + F->getName() + "'";
  std::string Message =
      Fns.empty()    ? "the program defines no kernel"
      : Name.empty() ? "the program defines several functions and none is __global__; pick one "
                       "with --kernel (kernels: " +
                           Names + ")"
                     : "no kernel named '" + Name + "' (kernels: " + Names + ")";
  SourceRange First =
      TU && !TU->Functions.empty() ? TU->Functions.front()->NameRange : SourceRange();
  Diags.error(First, Message);
  if (TU)
    for (const auto &FD : TU->Functions)
      Diags.note(FD->NameRange, "kernel '" + FD->Name + "' defined here");
  return nullptr;
}

KernelSignature getSignature(const ir::Function &F, const ast::TranslationUnit *TU) {
  const ast::FunctionDecl *Decl = nullptr;
  if (TU) {
    for (const auto &FD : TU->Functions)
      if (FD->Name == F.getName() && FD->Params.size() == F.getNumArgs())
        Decl = FD.get();
  }
  KernelSignature Sig;
  Sig.Name = F.getName();
  for (unsigned I = 0; I < F.getNumArgs(); ++I) {
    KernelParam P;
    P.IRType = F.getArg(I)->getType();
    P.Name = Decl ? Decl->Params[I].Name : F.getArg(I)->getName();
    if (P.Name.empty())
      P.Name = "arg" + std::to_string(I);
    if (Decl)
      P.CType = Decl->Params[I].Type;
    Sig.Params.push_back(std::move(P));
  }
  return Sig;
}

namespace {

/// Integer parameter facts: width and signedness (std::nullopt: signless,
/// known only from the IR).
struct IntInfo {
  unsigned Bits;
  std::optional<bool> Signed;
};

std::optional<IntInfo> cIntInfo(ast::BaseType B) {
  using ast::BaseType;
  switch (B) {
  case BaseType::Bool:
    return IntInfo{1, false};
  case BaseType::Char:
    return IntInfo{8, true};
  case BaseType::UChar:
    return IntInfo{8, false};
  case BaseType::Short:
    return IntInfo{16, true};
  case BaseType::UShort:
    return IntInfo{16, false};
  case BaseType::Int:
    return IntInfo{32, true};
  case BaseType::UInt:
    return IntInfo{32, false};
  case BaseType::Long:
    return IntInfo{64, true};
  case BaseType::ULong:
    return IntInfo{64, false};
  default:
    return std::nullopt;
  }
}

/// The dtypes that may back a pointer to Pointee (an IR scalar), narrowed by
/// the C base type when known.
std::vector<DType> acceptedDTypes(const ir::Type *Pointee, std::optional<ast::BaseType> Base) {
  using ast::BaseType;
  if (Base) {
    switch (*Base) {
    case BaseType::Bool:
      return {DType::Bool};
    case BaseType::Char:
      return {DType::I8};
    case BaseType::UChar:
      return {DType::U8};
    case BaseType::Short:
      return {DType::I16};
    case BaseType::UShort:
      return {DType::U16};
    case BaseType::Int:
      return {DType::I32};
    case BaseType::UInt:
      return {DType::U32};
    case BaseType::Long:
      return {DType::I64};
    case BaseType::ULong:
      return {DType::U64};
    case BaseType::Half:
      return {DType::F16};
    case BaseType::BFloat16:
      // NumPy has no bfloat16: the raw bits travel as uint16.
      return {DType::U16};
    case BaseType::Float:
      return {DType::F32};
    case BaseType::Double:
      return {DType::F64};
    case BaseType::Void:
      return {};
    }
  }
  switch (Pointee->getKind()) {
  case ir::TypeKind::Int:
    switch (Pointee->getIntBits()) {
    case 1:
      return {DType::Bool};
    case 8:
      return {DType::I8, DType::U8};
    case 16:
      return {DType::I16, DType::U16};
    case 32:
      return {DType::I32, DType::U32};
    case 64:
      return {DType::I64, DType::U64};
    }
    return {};
  case ir::TypeKind::Float:
    switch (Pointee->getFloatKind()) {
    case ir::FloatKind::F16:
      return {DType::F16};
    case ir::FloatKind::BF16:
      return {DType::U16};
    case ir::FloatKind::F32:
      return {DType::F32};
    case ir::FloatKind::F64:
      return {DType::F64};
    }
    return {};
  default:
    return {};
  }
}

std::string quoted(const std::string &S) { return "'" + S + "'"; }

} // namespace

bool checkArrayType(const KernelParam &P, DType T, std::string &Error) {
  const ir::Type *Pointee = P.IRType->getPointee();
  bool Nested = Pointee->isPointerOrPointerTile() || (P.CType && P.CType->PointerDepth > 1);
  std::vector<DType> Accepted =
      Nested ? std::vector<DType>{}
             : acceptedDTypes(Pointee, P.CType ? std::optional(P.CType->Base) : std::nullopt);
  for (DType A : Accepted)
    if (A == T)
      return true;
  std::string Expected;
  for (size_t I = 0; I < Accepted.size(); ++I)
    Expected += (I ? " or " : "") + std::string(dtypeName(Accepted[I]));
  if (Accepted.empty()) {
    Error = "parameter " + quoted(P.Name) + " has type " + P.typeString() +
            ", which cannot be passed as an array";
    return false;
  }
  Error = "parameter " + quoted(P.Name) + " has type " + P.typeString() +
          " and expects an array of " + Expected + ", but the array has dtype " + dtypeName(T);
  return false;
}

namespace {

/// Parses an optionally negative decimal or 0x-hex integer into a sign and
/// a magnitude.
bool parseIntLiteral(const std::string &Text, bool &Negative, uint64_t &Magnitude) {
  std::string_view S = Text;
  Negative = false;
  if (!S.empty() && (S[0] == '-' || S[0] == '+')) {
    Negative = S[0] == '-';
    S.remove_prefix(1);
  }
  // Triton-C's literal bases: 0x hexadecimal, a leading 0 octal (`010` is
  // 8 in a kernel, so it is 8 on the command line too).
  int Base = 10;
  if (S.size() > 2 && S[0] == '0' && (S[1] == 'x' || S[1] == 'X')) {
    Base = 16;
    S.remove_prefix(2);
  } else if (S.size() > 1 && S[0] == '0') {
    Base = 8;
    S.remove_prefix(1);
  }
  if (S.empty() || S[0] == '-' || S[0] == '+')
    return false;
  auto [End, Ec] = std::from_chars(S.data(), S.data() + S.size(), Magnitude, Base);
  if (Ec == std::errc::result_out_of_range) {
    Magnitude = std::numeric_limits<uint64_t>::max();
    // The digits are valid; the range check below reports the overflow.
    return End == S.data() + S.size();
  }
  return Ec == std::errc() && End == S.data() + S.size();
}

/// The accepted range of an integer parameter. A signless (IR-only)
/// parameter accepts both the signed and the unsigned interpretation.
void intRange(const IntInfo &I, __int128 &Min, __int128 &Max) {
  if (I.Bits == 1) {
    Min = 0;
    Max = 1;
  } else if (I.Signed.value_or(false)) {
    Max = (static_cast<__int128>(1) << (I.Bits - 1)) - 1;
    Min = -Max - 1;
  } else {
    Max = (static_cast<__int128>(1) << I.Bits) - 1;
    Min = I.Signed ? 0 : -(static_cast<__int128>(1) << (I.Bits - 1));
  }
}

std::string toString128(__int128 V) {
  if (V < 0)
    return "-" + std::to_string(static_cast<uint64_t>(-V));
  return std::to_string(static_cast<uint64_t>(V));
}

bool parseIntArg(const KernelParam &P, const IntInfo &Info, const std::string &Text,
                 interp::ArgValue &Out, std::string &Error) {
  std::string What = "parameter " + quoted(P.Name) + " of type " + P.typeString();
  if (Info.Bits == 1 && (Text == "true" || Text == "false")) {
    Out = interp::ArgValue::integer(Text == "true");
    return true;
  }
  bool Negative;
  uint64_t Magnitude;
  if (!parseIntLiteral(Text, Negative, Magnitude)) {
    Error = "invalid integer literal " + quoted(Text) + " for " + What;
    return false;
  }
  __int128 V = Negative ? -static_cast<__int128>(Magnitude) : static_cast<__int128>(Magnitude);
  __int128 Min, Max;
  intRange(Info, Min, Max);
  if (V < Min || V > Max) {
    Error = "integer literal " + quoted(Text) + " does not fit " + What + " (range " +
            toString128(Min) + " to " + toString128(Max) + ")";
    return false;
  }
  // Values above INT64_MAX (unsigned long) travel as their bit pattern.
  Out = interp::ArgValue::integer(static_cast<int64_t>(static_cast<uint64_t>(V)));
  return true;
}

bool parseFloatArg(const KernelParam &P, ir::FloatKind K, const std::string &Text,
                   interp::ArgValue &Out, std::string &Error) {
  std::string What = "parameter " + quoted(P.Name) + " of type " + P.typeString();
  std::string_view S = Text;
  // from_chars takes no leading '+'.
  if (!S.empty() && S[0] == '+')
    S.remove_prefix(1);
  double V = 0;
  auto [End, Ec] = std::from_chars(S.data(), S.data() + S.size(), V);
  if (S.empty() || End != S.data() + S.size() ||
      (Ec != std::errc() && Ec != std::errc::result_out_of_range)) {
    Error = "invalid floating-point literal " + quoted(Text) + " for " + What;
    return false;
  }
  bool Overflow = Ec == std::errc::result_out_of_range && std::fabs(V) > 1;
  if (!Overflow && std::isfinite(V))
    Overflow = std::isinf(ir::roundToFloatKind(V, K));
  if (Overflow) {
    Error = "floating-point literal " + quoted(Text) + " does not fit " + What;
    return false;
  }
  Out = interp::ArgValue::floating(V);
  return true;
}

} // namespace

bool parseScalarArg(const KernelParam &P, const std::string &Text, interp::ArgValue &Out,
                    std::string &Error) {
  const ir::Type *T = P.IRType;
  if (T->getKind() == ir::TypeKind::Float)
    return parseFloatArg(P, T->getFloatKind(), Text, Out, Error);
  if (T->getKind() == ir::TypeKind::Int) {
    std::optional<IntInfo> Info;
    if (P.CType && P.CType->PointerDepth == 0)
      Info = cIntInfo(P.CType->Base);
    if (!Info || Info->Bits != T->getIntBits())
      Info = IntInfo{T->getIntBits(), std::nullopt};
    if (Info->Bits == 1)
      Info->Signed = false;
    return parseIntArg(P, *Info, Text, Out, Error);
  }
  Error = "parameter " + quoted(P.Name) + " has type " + P.typeString() +
          ", which cannot be passed from the command line";
  return false;
}

bool prepareLaunch(const KernelSignature &Sig, const std::vector<std::string> &ArgTexts,
                   PreparedLaunch &Out, std::string &Error) {
  if (ArgTexts.size() != Sig.Params.size()) {
    Error = "kernel " + Sig.str() + " takes " + std::to_string(Sig.Params.size()) + " argument" +
            (Sig.Params.size() == 1 ? "" : "s") + ", but " + std::to_string(ArgTexts.size()) +
            (ArgTexts.size() == 1 ? " was" : " were") +
            " given (a .npy file for each pointer, a literal for each scalar)";
    return false;
  }
  Out.Arrays.clear();
  Out.ArrayParams.clear();
  Out.ArrayPaths.clear();
  Out.Buffers.clear();
  Out.Args.clear();
  for (size_t I = 0; I < Sig.Params.size(); ++I) {
    const KernelParam &P = Sig.Params[I];
    if (!P.isPointer()) {
      interp::ArgValue A;
      if (!parseScalarArg(P, ArgTexts[I], A, Error))
        return false;
      Out.Args.push_back(A);
      continue;
    }
    if (P.IRType->isTile()) {
      Error = "parameter " + quoted(P.Name) + " has the tile type " + P.typeString() +
              ", which cannot be passed from the command line";
      return false;
    }
    NpyArray Array;
    std::string Why;
    if (!readNpyFile(ArgTexts[I], Array, Why)) {
      Error = "argument for parameter " + quoted(P.Name) + ": " + Why;
      return false;
    }
    if (!checkArrayType(P, Array.Type, Error))
      return false;
    Out.Args.push_back(interp::ArgValue::buffer(Out.Arrays.size()));
    Out.Arrays.push_back(std::move(Array));
    Out.ArrayParams.push_back(I);
    Out.ArrayPaths.push_back(ArgTexts[I]);
  }
  // Views are taken only now: Arrays no longer reallocates.
  for (size_t A = 0; A < Out.Arrays.size(); ++A) {
    NpyArray &Array = Out.Arrays[A];
    Out.Buffers.push_back(interp::HostBuffer{Array.Data.data(), Array.Data.size(),
                                             Sig.Params[Out.ArrayParams[A]].Name});
  }
  return true;
}

namespace {
std::string outputPath(const KernelSignature &Sig, const PreparedLaunch &L, const std::string &Dir,
                       size_t A) {
  return (std::filesystem::path(Dir) / (Sig.Params[L.ArrayParams[A]].Name + ".npy")).string();
}
} // namespace

bool checkLaunchOutputs(const KernelSignature &Sig, const PreparedLaunch &L, const std::string &Dir,
                        std::string &Error) {
  std::error_code Ec;
  std::filesystem::file_status DirStatus = std::filesystem::status(Dir, Ec);
  if (std::filesystem::exists(DirStatus) && !std::filesystem::is_directory(DirStatus)) {
    Error = "cannot write into '" + Dir + "': " + std::strerror(ENOTDIR);
    return false;
  }
  for (size_t A = 0; A < L.Arrays.size(); ++A) {
    std::string Path = outputPath(Sig, L, Dir, A);
    if (std::filesystem::is_directory(Path, Ec)) {
      Error = "cannot write '" + Path + "': " + std::strerror(EISDIR);
      return false;
    }
    for (size_t In = 0; In < L.ArrayPaths.size(); ++In) {
      if (isSameFile(Path, L.ArrayPaths[In])) {
        Error = "--out would overwrite the input '" + L.ArrayPaths[In] + "' with '" + Path +
                "'; choose another output directory";
        return false;
      }
    }
  }
  return true;
}

bool writeLaunchOutputs(const KernelSignature &Sig, const PreparedLaunch &L, const std::string &Dir,
                        std::string &Error) {
  if (!checkLaunchOutputs(Sig, L, Dir, Error))
    return false;
  std::error_code Ec;
  std::filesystem::create_directories(Dir, Ec);
  if (Ec || !std::filesystem::is_directory(Dir)) {
    Error = "cannot create the output directory '" + Dir + "'" + (Ec ? ": " + Ec.message() : "");
    return false;
  }
  // Every file to a temporary first; only a complete set is renamed.
  std::vector<std::string> Temps;
  auto RemoveTemps = [&] {
    for (const std::string &T : Temps)
      ::unlink(T.c_str());
  };
  for (size_t A = 0; A < L.Arrays.size(); ++A) {
    std::string Temp;
    if (!writeTemporaryNextTo(outputPath(Sig, L, Dir, A), serializeNpy(L.Arrays[A]), Temp, Error)) {
      RemoveTemps();
      return false;
    }
    Temps.push_back(Temp);
  }
  for (size_t A = 0; A < L.Arrays.size(); ++A) {
    std::string Path = outputPath(Sig, L, Dir, A);
    if (::rename(Temps[A].c_str(), Path.c_str()) != 0) {
      Error = "cannot write '" + Path + "': " + std::strerror(errno);
      RemoveTemps();
      return false;
    }
  }
  return true;
}

} // namespace tritonc::driver

//===- KernelSignature.cpp - Kernel parameters and packed arguments --------===//
#include "tritonc/runtime/KernelSignature.h"

#include <cstring>

namespace tritonc::runtime {

const char *argKindName(ArgKind K) {
  switch (K) {
  case ArgKind::Pointer:
    return "ptr";
  case ArgKind::Int1:
    return "i1";
  case ArgKind::Int8:
    return "i8";
  case ArgKind::Int16:
    return "i16";
  case ArgKind::Int32:
    return "i32";
  case ArgKind::Int64:
    return "i64";
  case ArgKind::F16:
    return "f16";
  case ArgKind::BF16:
    return "bf16";
  case ArgKind::F32:
    return "f32";
  case ArgKind::F64:
    return "f64";
  }
  return "?";
}

unsigned argKindSize(ArgKind K) {
  switch (K) {
  case ArgKind::Int1:
  case ArgKind::Int8:
    return 1;
  case ArgKind::Int16:
  case ArgKind::F16:
  case ArgKind::BF16:
    return 2;
  case ArgKind::Int32:
  case ArgKind::F32:
    return 4;
  case ArgKind::Pointer:
  case ArgKind::Int64:
  case ArgKind::F64:
    return 8;
  }
  return 8;
}

static std::string paramString(const KernelParam &P) {
  std::string S = argKindName(P.Kind);
  if (P.Kind == ArgKind::Pointer && !P.Pointee.empty())
    S = P.Pointee + "*";
  if (!P.Name.empty())
    S += " " + P.Name;
  return S;
}

std::string KernelSignature::str() const {
  std::string S = Name + "(";
  for (size_t I = 0; I < Params.size(); ++I) {
    if (I)
      S += ", ";
    S += paramString(Params[I]);
  }
  return S + ")";
}

KernelArg KernelArg::make(ArgKind K, const void *Src, unsigned Size) {
  KernelArg A;
  A.Kind = K;
  std::memcpy(A.Storage, Src, Size);
  return A;
}

int64_t KernelArg::asInt() const {
  switch (Kind) {
  case ArgKind::Int1:
  case ArgKind::Int8: {
    int8_t V;
    std::memcpy(&V, Storage, 1);
    return V;
  }
  case ArgKind::Int16: {
    int16_t V;
    std::memcpy(&V, Storage, 2);
    return V;
  }
  case ArgKind::Int32: {
    int32_t V;
    std::memcpy(&V, Storage, 4);
    return V;
  }
  case ArgKind::Pointer:
  case ArgKind::Int64: {
    int64_t V;
    std::memcpy(&V, Storage, 8);
    return V;
  }
  default:
    return 0;
  }
}

std::vector<void *> KernelArgs::pointers() {
  std::vector<void *> P;
  P.reserve(Args.size());
  for (KernelArg &A : Args)
    P.push_back(A.data());
  return P;
}

Status checkArguments(const KernelSignature &Sig, const KernelArgs &Args) {
  if (Args.size() != Sig.Params.size())
    return makeError("kernel " + Sig.Name + " takes " + std::to_string(Sig.Params.size()) +
                     " argument" + (Sig.Params.size() == 1 ? "" : "s") + ", " +
                     std::to_string(Args.size()) + " given; signature: " + Sig.str());
  for (size_t I = 0; I < Args.size(); ++I) {
    const KernelParam &P = Sig.Params[I];
    ArgKind Given = Args.args()[I].kind();
    if (Given == P.Kind)
      continue;
    std::string Which =
        "argument " + std::to_string(I) + (P.Name.empty() ? "" : " (" + P.Name + ")");
    return makeError("kernel " + Sig.Name + ": " + Which + " is " + argKindName(Given) +
                     ", the parameter is " + paramString({"", P.Kind, P.Pointee}) +
                     "; signature: " + Sig.str());
  }
  return Status::ok();
}

std::string specializationString(const KernelArgs &Args) {
  std::string S;
  for (const KernelArg &A : Args.args()) {
    switch (A.kind()) {
    case ArgKind::F16:
    case ArgKind::BF16:
    case ArgKind::F32:
    case ArgKind::F64:
      S += 'F';
      break;
    default: {
      int64_t V = A.asInt();
      bool Multiple = V % 16 == 0;
      if (A.kind() == ArgKind::Int1) // a flag: no fact the code could use
        S += 'N';
      else if (A.kind() == ArgKind::Pointer)
        S += Multiple ? 'D' : 'N';
      else if (V == 1)
        S += '1';
      else if (V >= 0)
        S += Multiple ? 'S' : 'U';
      else
        S += Multiple ? 'D' : 'N';
    }
    }
  }
  return S;
}

} // namespace tritonc::runtime

//===- TensorMaps.cpp - Tensor maps encoded at launch ----------------------===//
#include "tritonc/runtime/TensorMaps.h"

#include <cstdio>
#include <iterator>

namespace tritonc::runtime {

namespace {

/// "kernel K: tensor map 0 of parameter 1 (A): ". Built on error paths only.
std::string context(const KernelSignature &Sig, unsigned Index) {
  std::string S = "kernel " + Sig.Name + ": tensor map " + std::to_string(Index);
  if (Index >= Sig.TensorMaps.size())
    return S + ": ";
  unsigned Base = Sig.TensorMaps[Index].BaseParam;
  S += " of parameter " + std::to_string(Base);
  if (Base < Sig.Params.size() && !Sig.Params[Base].Name.empty())
    S += " (" + Sig.Params[Base].Name + ")";
  return S + ": ";
}

/// Bytes of a CUtensorMapDataType's element; 0 for the packed types, which
/// tritonc does not use, and for unknown values.
unsigned dataTypeBytes(unsigned DataType) {
  constexpr unsigned Bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  return DataType < std::size(Bytes) ? Bytes[DataType] : 0;
}

bool isIntegerKind(ArgKind K) {
  return K == ArgKind::Int1 || K == ArgKind::Int8 || K == ArgKind::Int16 || K == ArgKind::Int32 ||
         K == ArgKind::Int64;
}

/// The first parameter index of P that is not an integer argument of Args,
/// or -1.
int64_t badParam(const ParamPoly &P, const KernelArgs &Args) {
  for (const ParamTerm &T : P)
    for (unsigned I : T.Params)
      if (I >= Args.size() || !isIntegerKind(Args.args()[I].kind()))
        return I;
  return -1;
}

/// The checks of the spec alone; an empty string when it is well formed.
std::string checkSpec(const TensorMapSpec &S, const KernelArgs &Args) {
  unsigned Rank = S.rank();
  if (Rank == 0 || Rank > MaxTensorMapRank)
    return "the rank is " + std::to_string(Rank) + "; tensor maps have 1 to 5 dimensions";
  if (S.Strides.size() != Rank - 1 || S.Box.size() != Rank)
    return "the spec has " + std::to_string(S.Strides.size()) + " strides and a box of rank " +
           std::to_string(S.Box.size()) + " for rank " + std::to_string(Rank);
  if (S.BaseParam >= Args.size() || Args.args()[S.BaseParam].kind() != ArgKind::Pointer)
    return "the base is not a pointer argument";
  unsigned Elem = dataTypeBytes(S.DataType);
  if (Elem == 0 || Elem != S.ElemBytes)
    return "data type " + std::to_string(S.DataType) + " does not have " +
           std::to_string(S.ElemBytes) + "-byte elements";
  for (unsigned D = 0; D < Rank; ++D)
    if (S.Box[D] == 0 || S.Box[D] > 256)
      return "box dimension " + std::to_string(D) + " is " + std::to_string(S.Box[D]) +
             "; it must be 1 to 256";
  if (!S.ElementStrides.empty() && S.ElementStrides.size() != Rank)
    return "the spec has " + std::to_string(S.ElementStrides.size()) +
           " traversal strides for rank " + std::to_string(Rank);
  for (unsigned D = 0; D < S.ElementStrides.size(); ++D)
    if (S.ElementStrides[D] == 0 || S.ElementStrides[D] > 8 || (D == 0 && S.ElementStrides[D] != 1))
      return "traversal stride " + std::to_string(D) + " is " +
             std::to_string(S.ElementStrides[D]) +
             "; it must be 1 to 8, and 1 innermost (the copy engine ignores that one)";
  unsigned InnerBytes = S.Box[0] * S.ElemBytes;
  if (InnerBytes % 16 != 0)
    return "the box's inner dimension is " + std::to_string(InnerBytes) +
           " bytes, not a multiple of 16";
  if (S.SwizzleBytes != 0 && S.SwizzleBytes != 32 && S.SwizzleBytes != 64 && S.SwizzleBytes != 128)
    return "swizzle " + std::to_string(S.SwizzleBytes) + " is not 0, 32, 64 or 128 bytes";
  if (S.SwizzleBytes != 0 && InnerBytes > S.SwizzleBytes)
    return "the box's inner dimension is " + std::to_string(InnerBytes) +
           " bytes, more than the swizzle span of " + std::to_string(S.SwizzleBytes);
  for (const std::optional<ParamPoly> &P : S.Dims)
    if (int64_t I = P ? badParam(*P, Args) : -1; I >= 0)
      return "an extent uses parameter " + std::to_string(I) + ", which is not an integer argument";
  for (const ParamPoly &P : S.Strides)
    if (int64_t I = badParam(P, Args); I >= 0)
      return "a stride uses parameter " + std::to_string(I) + ", which is not an integer argument";
  return {};
}

int swizzleEnum(unsigned Bytes) {
  switch (Bytes) {
  case 32:
    return cu::TensorMapSwizzle32B;
  case 64:
    return cu::TensorMapSwizzle64B;
  case 128:
    return cu::TensorMapSwizzle128B;
  default:
    return cu::TensorMapSwizzleNone;
  }
}

std::string hex(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

} // namespace

Expected<TensorMapPlan> planTensorMap(const KernelSignature &Sig, unsigned Index,
                                      const KernelArgs &Args) {
  if (Index >= Sig.TensorMaps.size())
    return makeError(context(Sig, Index) + "the signature has " +
                     std::to_string(Sig.TensorMaps.size()) + " tensor maps");
  const TensorMapSpec &S = Sig.TensorMaps[Index];
  if (std::string Why = checkSpec(S, Args); !Why.empty())
    return makeError(context(Sig, Index) + Why);
  // Every index was checked: the lambda only reads.
  auto Value = [&](unsigned I) -> std::optional<int64_t> { return Args.args()[I].asInt(); };

  TensorMapPlan P;
  P.Rank = S.rank();
  P.DataType = S.DataType;
  P.Swizzle = swizzleEnum(S.SwizzleBytes);
  for (unsigned D = 0; D < P.Rank; ++D) {
    P.Box[D] = S.Box[D];
    if (!S.ElementStrides.empty())
      P.ElementStrides[D] = S.ElementStrides[D];
    if (!S.Dims[D]) {
      P.Dims[D] = uint64_t(TensorMapUnboundedDim);
      continue;
    }
    std::optional<int64_t> V = evaluateWith(*S.Dims[D], Value);
    if (!V)
      return makeError(context(Sig, Index) + "the extent of dimension " + std::to_string(D) +
                       " overflows 64 bits");
    if (*V > TensorMapUnboundedDim)
      return makeError(context(Sig, Index) + "dimension " + std::to_string(D) + " has extent " +
                       std::to_string(*V) + ", more than the " +
                       std::to_string(TensorMapUnboundedDim) + " a tensor map allows");
    if (*V <= 0)
      P.ZeroMap = true;
    else
      P.Dims[D] = uint64_t(*V);
  }
  if (P.ZeroMap) {
    for (unsigned D = 0; D < P.Rank; ++D)
      P.Dims[D] = 1;
    for (unsigned D = 0; D + 1 < P.Rank; ++D)
      P.ByteStrides[D] = 16;
    return P;
  }

  for (unsigned D = 1; D < P.Rank; ++D) {
    std::optional<int64_t> V = evaluateWith(S.Strides[D - 1], Value);
    int64_t Bytes = 0;
    if (!V || __builtin_mul_overflow(*V, int64_t(S.ElemBytes), &Bytes))
      return makeError(context(Sig, Index) + "the stride of dimension " + std::to_string(D) +
                       " overflows 64 bits");
    const char *Why = nullptr;
    if (Bytes < 0)
      Why = "is negative";
    else if (Bytes % 16 != 0)
      Why = "is not a multiple of 16";
    else if (Bytes >= (int64_t(1) << 40))
      Why = "is not below 2^40";
    if (Why)
      return makeError(context(Sig, Index) + "the stride of dimension " + std::to_string(D) +
                       " is " + std::to_string(*V) + " elements = " + std::to_string(Bytes) +
                       " bytes, which " + Why +
                       " (a tensor map needs strides of 16-byte multiples below 2^40 bytes)");
    P.ByteStrides[D - 1] = uint64_t(Bytes);
  }
  P.Base = CuDevicePtr(Args.args()[S.BaseParam].asInt());
  if (P.Base % 16 != 0)
    return makeError(context(Sig, Index) + "the address " + hex(P.Base) +
                     " is not 16-byte aligned, as a tensor map needs");
  return P;
}

Status encodeTensorMap(CudaDriver &D, const KernelSignature &Sig, unsigned Index,
                       const TensorMapPlan &P, CuTensorMap &Map) {
  if (!D.api().TensorMapEncodeTiled)
    return makeError(context(Sig, Index) + "the CUDA driver (" + D.libraryName() + ", CUDA " +
                     D.driverVersionString() +
                     ") lacks cuTensorMapEncodeTiled; tensor maps need CUDA 12.0 or newer");
  CuDevicePtr Base = P.Base;
  if (P.ZeroMap) {
    Expected<CuDevicePtr> Zero = D.zeroBlock();
    if (!Zero)
      return makeError(context(Sig, Index) + "allocating the zero block: " + Zero.error());
    Base = *Zero;
  }
  CuResult R = D.api().TensorMapEncodeTiled(
      &Map, int(P.DataType), P.Rank, reinterpret_cast<void *>(uintptr_t(Base)), P.Dims.data(),
      P.ByteStrides.data(), P.Box.data(), P.ElementStrides.data(), cu::TensorMapInterleaveNone,
      P.Swizzle, cu::TensorMapL2Promotion128B, cu::TensorMapFloatOOBFillNone);
  if (R == cu::Success)
    return Status::ok();
  std::string Dims, Strides, Box, Traversal;
  for (unsigned I = 0; I < P.Rank; ++I) {
    Dims += (I ? "," : "") + std::to_string(P.Dims[I]);
    Box += (I ? "," : "") + std::to_string(P.Box[I]);
    Traversal += (I ? "," : "") + std::to_string(P.ElementStrides[I]);
    if (I + 1 < P.Rank)
      Strides += (I ? "," : "") + std::to_string(P.ByteStrides[I]);
  }
  return makeError(context(Sig, Index) + "cuTensorMapEncodeTiled failed: " + D.describe(R) +
                   " (address " + hex(Base) + ", extents [" + Dims + "], byte strides [" + Strides +
                   "], box [" + Box + "], traversal strides [" + Traversal + "], data type " +
                   std::to_string(P.DataType) + ", swizzle " + std::to_string(P.Swizzle) + ")");
}

} // namespace tritonc::runtime

//===- DeviceLaunch.cpp - Running `tritonc run` arguments on the GPU -------===//

#include "tritonc/driver/Jit.h"
#include "tritonc/driver/Launch.h"
#include "tritonc/support/FloatFormats.h"

namespace tritonc::driver {

using runtime::ArgKind;
using runtime::Expected;
using runtime::KernelArg;
using runtime::makeError;
using runtime::Status;

namespace {

/// A scalar from the command line in the kind its parameter is passed as.
/// Integers that parseScalarArg accepted fit their width (unsigned values
/// travel as their bit pattern), so truncation keeps the value.
KernelArg scalarArg(ArgKind Kind, const interp::ArgValue &V) {
  switch (Kind) {
  case ArgKind::Int1:
    return KernelArg::i1(V.IntValue != 0);
  case ArgKind::Int8:
    return KernelArg::i8(static_cast<int8_t>(V.IntValue));
  case ArgKind::Int16:
    return KernelArg::i16(static_cast<int16_t>(V.IntValue));
  case ArgKind::Int32:
    return KernelArg::i32(static_cast<int32_t>(V.IntValue));
  case ArgKind::Int64:
    return KernelArg::i64(V.IntValue);
  // The value is already rounded to the parameter's format, so the
  // conversions below are exact.
  case ArgKind::F16:
    return KernelArg::f16Bits(floatToHalfBits(static_cast<float>(roundToHalf(V.FloatValue))));
  case ArgKind::BF16:
    return KernelArg::bf16Bits(
        floatToBFloat16Bits(static_cast<float>(roundToBFloat16(V.FloatValue))));
  case ArgKind::F32:
    return KernelArg::f32(static_cast<float>(V.FloatValue));
  case ArgKind::F64:
    return KernelArg::f64(V.FloatValue);
  case ArgKind::Pointer:
    break;
  }
  return KernelArg::pointer(0);
}

} // namespace

Expected<runtime::KernelArgs> uploadPreparedArguments(runtime::CudaDriver &D,
                                                      const runtime::KernelSignature &Sig,
                                                      const PreparedLaunch &L,
                                                      std::vector<runtime::DeviceBuffer> &Buffers) {
  if (Sig.Params.size() != L.Args.size())
    return makeError("kernel " + Sig.str() + " takes " + std::to_string(Sig.Params.size()) +
                     " arguments, " + std::to_string(L.Args.size()) + " were prepared");
  Buffers.clear();
  for (size_t A = 0; A < L.Arrays.size(); ++A) {
    const NpyArray &Array = L.Arrays[A];
    std::string Name = Sig.Params[L.ArrayParams[A]].Name;
    Expected<runtime::DeviceBuffer> B = runtime::DeviceBuffer::allocate(D, Array.Data.size());
    if (!B)
      return makeError("buffer for parameter '" + Name + "': " + B.error());
    if (Status S = B->upload(Array.Data.data(), Array.Data.size()); !S)
      return makeError("buffer for parameter '" + Name + "': " + S.error());
    Buffers.push_back(B.take());
  }

  runtime::KernelArgs Args;
  for (size_t I = 0; I < L.Args.size(); ++I) {
    const interp::ArgValue &V = L.Args[I];
    ArgKind Kind = Sig.Params[I].Kind;
    if (V.K == interp::ArgValue::Kind::Buffer) {
      if (V.BufferIndex >= Buffers.size())
        return makeError("argument " + std::to_string(I) + " names a missing buffer");
      Args.pointer(Buffers[V.BufferIndex].ptr());
    } else if (Kind == ArgKind::Pointer) {
      return makeError("parameter '" + Sig.Params[I].Name + "' is a pointer but got a scalar");
    } else {
      Args.add(scalarArg(Kind, V));
    }
  }
  return Args;
}

Status runPreparedOnDevice(JitKernel &K, PreparedLaunch &L, const std::array<unsigned, 3> &Grid) {
  Expected<runtime::CudaDriver *> D = requireCudaDriver();
  if (!D)
    return makeError(D.error());
  const runtime::KernelSignature &Sig = K.signature();
  std::vector<runtime::DeviceBuffer> Buffers;
  Expected<runtime::KernelArgs> Uploaded = uploadPreparedArguments(**D, Sig, L, Buffers);
  if (!Uploaded)
    return makeError(Uploaded.error());
  runtime::KernelArgs &Args = *Uploaded;
  if (Status S = K.launch(Grid, Args); !S)
    return S;
  if (Status S = (*D)->synchronize(); !S)
    return makeError("kernel " + Sig.Name + " failed: " + S.error());
  for (size_t A = 0; A < L.Arrays.size(); ++A) {
    NpyArray &Array = L.Arrays[A];
    if (Status S = Buffers[A].download(Array.Data.data(), Array.Data.size()); !S)
      return makeError("buffer for parameter '" + Sig.Params[L.ArrayParams[A]].Name +
                       "': " + S.error());
  }
  return Status::ok();
}

} // namespace tritonc::driver

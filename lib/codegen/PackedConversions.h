//===- PackedConversions.h - Pairs of f32 -> f16 conversions in one cvt -----===//
//
// A rewrite of a finished PTX function body (PackedConversions.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TRITONC_LIB_CODEGEN_PACKEDCONVERSIONS_H
#define TRITONC_LIB_CODEGEN_PACKEDCONVERSIONS_H

namespace tritonc::ptx {
class PTXFunctionBuilder;
} // namespace tritonc::ptx

namespace tritonc::codegen {

/// Turns each pair of f32 -> f16 (bf16) conversions whose results only feed
/// one packing `mov.b32 %r, {lo, hi}` into `cvt.rn.f16x2.f32 %r, hi, lo`
/// (bf16x2), where the code from the conversions to the mov is straight-line
/// and leaves their sources alone. Run on the finished body: it rewrites
/// lines in place, so no line position held elsewhere survives it.
void packConvertedPairs(ptx::PTXFunctionBuilder &B);

} // namespace tritonc::codegen

#endif

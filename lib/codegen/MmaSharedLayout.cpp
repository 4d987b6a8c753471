//===- MmaSharedLayout.cpp - Swizzled shared tiles read by tensor cores ---===//

#include "MmaSharedLayout.h"

#include <bit>

namespace tritonc::codegen {

using ptx::Reg;
using ptx::Ty;

MmaSharedLayout MmaSharedLayout::make(int64_t Shape0, int64_t Shape1, unsigned ContigDim,
                                      unsigned ElemBytes) {
  MmaSharedLayout L;
  L.ElemBytes = ElemBytes;
  L.ContigDim = ContigDim;
  L.ContigExtent = ContigDim == 0 ? Shape0 : Shape1;
  L.StridedExtent = ContigDim == 0 ? Shape1 : Shape0;
  int64_t RowBytes = L.ContigExtent * ElemBytes;
  L.SwizzleBytes = RowBytes >= 128 ? 128 : RowBytes >= 64 ? 64 : RowBytes >= 32 ? 32 : 0;
  return L;
}

uint64_t MmaSharedLayout::linearOffset(int64_t Strided, int64_t Contig) const {
  int64_t E = elemsPerRow();
  return static_cast<uint64_t>((Contig / E) * StridedExtent * SwizzleBytes +
                               Strided * SwizzleBytes + (Contig % E) * ElemBytes);
}

uint64_t MmaSharedLayout::swizzle(uint64_t Linear) const {
  return Linear ^ ((Linear >> 3) & ((SwizzleBytes / 16 - 1) << 4));
}

uint64_t MmaSharedLayout::offset(int64_t I0, int64_t I1) const {
  return ContigDim == 0 ? swizzle(linearOffset(I1, I0)) : swizzle(linearOffset(I0, I1));
}

unsigned MmaSharedLayout::descriptorMode() const {
  return SwizzleBytes == 128 ? 1 : SwizzleBytes == 64 ? 2 : 3;
}

Reg emitSwizzledOffset(ptx::PTXFunctionBuilder &B, const MmaSharedLayout &SL, const Reg &C0,
                       const Reg &C1) {
  const Reg &Strided = SL.ContigDim == 0 ? C1 : C0;
  const Reg &Contig = SL.ContigDim == 0 ? C0 : C1;
  int64_t E = SL.elemsPerRow();
  int LogE = std::countr_zero(static_cast<uint64_t>(E));
  // (Contig / E) * StridedExtent * S + Strided * S + (Contig % E) * ElemBytes
  Reg Block = B.shr(Ty::U32, Contig, LogE);
  Reg Lin = B.mul(Ty::U32, Block, static_cast<int64_t>(SL.StridedExtent * SL.SwizzleBytes));
  Lin = B.madLo(Ty::U32, Strided, static_cast<int64_t>(SL.SwizzleBytes), Lin);
  Reg InRow = B.bitAnd(Ty::U32, Contig, E - 1);
  Lin = B.madLo(Ty::U32, InRow, static_cast<int64_t>(SL.ElemBytes), Lin);
  Reg Row = B.bitAnd(Ty::U32, B.shr(Ty::U32, Lin, 3),
                     static_cast<int64_t>((SL.SwizzleBytes / 16 - 1) << 4));
  return B.bitXor(Ty::U32, Lin, Row);
}

} // namespace tritonc::codegen

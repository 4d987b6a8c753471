//===- MmaSharedLayout.h - Swizzled shared tiles read by tensor cores -*- C++ -*-===//
//
// wgmma reads its operands from shared memory through matrix descriptors,
// and the descriptor can only describe the "canonical" swizzled layouts. A 2-D
// tile is stored with one dimension contiguous (the "contiguous" dimension,
// K for a K-major operand, M or N for an MN-major one) and the other strided:
//
//   * the contiguous dimension is cut into column blocks of E elements, where
//     E elements fill one swizzle row of S bytes (S = 128, 64 or 32: the widest
//     that the tile's contiguous extent fills);
//   * a column block stores all its strided rows one after the other, S bytes
//     each, and the blocks follow one another;
//   * inside every 8-row group (8 S bytes, a "swizzle atom") the 16-byte chunk
//     index of a byte offset is XORed with its row within the atom, which is
//     what the descriptor's swizzle mode undoes:
//        physical = linear ^ ((linear >> 3) & ((S / 16 - 1) << 4)).
//
// Every part of the linear offset routes bits of the coordinates (all
// extents are powers of two) and the XOR is linear too, so the physical
// offset is a GF(2)-linear function of the coordinate bits: the offset of a
// thread's element is (offset of the thread's base coordinate) XOR (offset of
// the register's coordinate), which the stores use.
//
// The buffer must start 1024-byte aligned (the swizzle pattern is taken from
// absolute address bits; the descriptor's base-offset field stays 0).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/target/ptx/PTXBuilder.h"

#include <cstdint>

namespace tritonc::codegen {

struct MmaSharedLayout {
  unsigned ElemBytes = 2;
  /// The logical tile dimension (0 or 1) that is contiguous in shared memory.
  unsigned ContigDim = 1;
  int64_t ContigExtent = 0;
  int64_t StridedExtent = 0;
  /// Swizzle row width S (32, 64 or 128).
  unsigned SwizzleBytes = 128;

  /// The layout of a [Shape0, Shape1] tile with ContigDim contiguous, or
  /// SwizzleBytes = 0 when the contiguous extent is under 32 bytes.
  static MmaSharedLayout make(int64_t Shape0, int64_t Shape1, unsigned ContigDim,
                              unsigned ElemBytes);
  bool valid() const { return SwizzleBytes != 0; }

  int64_t elemsPerRow() const { return SwizzleBytes / ElemBytes; }
  uint64_t bytes() const { return static_cast<uint64_t>(ContigExtent * StridedExtent) * ElemBytes; }
  /// Byte offset of (strided, contiguous) before the swizzle.
  uint64_t linearOffset(int64_t Strided, int64_t Contig) const;
  /// Byte offset of the logical element (I0, I1), swizzled.
  uint64_t offset(int64_t I0, int64_t I1) const;
  uint64_t swizzle(uint64_t Linear) const;
  /// Leading and stride byte offsets of the matrix descriptor.
  uint64_t leadingByteOffset() const { return static_cast<uint64_t>(StridedExtent) * SwizzleBytes; }
  uint64_t strideByteOffset() const { return 8ull * SwizzleBytes; }
  /// The descriptor's 2-bit swizzle mode (1: 128 B, 2: 64 B, 3: 32 B).
  unsigned descriptorMode() const;
};

/// Emits the swizzled byte offset of the logical element (C0, C1) of a tile
/// in layout SL, from u32 coordinate registers.
ptx::Reg emitSwizzledOffset(ptx::PTXFunctionBuilder &B, const MmaSharedLayout &SL,
                            const ptx::Reg &C0, const ptx::Reg &C1);

} // namespace tritonc::codegen

//===- SlotIndices.h - Which slot of a ring a shared operand names -*- C++ -*-===//
//
// What the passes over GPU-level IR that reorder or synchronize shared
// memory accesses (insert-barriers, schedule-refills) know about slots: an
// operand names a buffer (an smem_alloc) and a constant slot, the slot an
// index value selects, or any slot. Two index values name different slots
// when they are ring counters that advance together: phis of one block that
// every edge either enters with two different constants in [0, S), or with
// a start and that start advanced 0 < D < S times (a ring whose slots carry
// on across an outer loop, as tensor-copies writes nested rings), or
// advances both by `select (icmp eq (x + 1), S), 0, x + 1` (or sge/uge,
// the same while x is in [0, S)), as async-rings writes them, and so do
// one index advanced that way a different number of times modulo S (ring
// indices are in [0, S)). Otherwise they may name the same slot, as may a
// constant and a value.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <optional>
#include <tuple>

namespace tritonc::transform {

/// The slot a shared operand names: of Buffer (an smem_alloc; null: any
/// buffer), slot Constant, the slot Index selects, or (neither) any slot.
struct SlotRef {
  const ir::Instruction *Buffer = nullptr;
  std::optional<int64_t> Constant;
  const ir::Value *Index = nullptr;

  bool operator<(const SlotRef &O) const {
    return std::tie(Buffer, Constant, Index) < std::tie(O.Buffer, O.Constant, O.Index);
  }
};

/// The slot of a shared-buffer value (an smem_alloc, an smem_slot of one).
SlotRef slotRefOf(ir::Value *Slot);

/// Whether A and B may be the same slot (at one point of the program: an
/// index value stands for its current value).
bool mayNameSameSlot(const SlotRef &A, const SlotRef &B);

/// X where Next is X advanced by one modulo Slots as async-rings writes it
/// (above); null otherwise.
ir::Value *previousRingIndex(ir::Value *Next, int64_t Slots);

} // namespace tritonc::transform

//===- TensorStores.h - Epilogue stores as bulk tensor stores -*- C++ -*-===//
//
// Registered as "tensor-stores" (pass 9 of docs/BACKEND-MIGRATION.md). A
// `store` or `masked_store` of a 2-D tile
//
//     masked_store %ptrs, %value, %mask
//
// whose pointers and mask have the tensor-map form (analysis/AffineAccess.h:
// a pointer parameter, unit stride along the tile's rows, the row stride and
// the mask's extents polynomials over the integer parameters, the base
// 16-byte aligned and the stride a multiple of 16 bytes) becomes
//
//     %slot = smem_alloc : smem<T<r,c>, #shared<swizzle=.., order=[1,0]>>
//     barrier                       ; other threads' reads of what the slot
//                                   ; may overlap (allocate-shared) are done
//     local_store %slot, %value
//     fence_proxy_async             ; the engine reads generic-proxy writes
//     fence_proxy_async_global      ; only after global writes by threads,
//                                   ; which the engine's must follow
//     barrier                       ; every thread's part is in the slot
//     tma_store %desc, [%row, %col], %slot
//     tma_store_wait 0              ; the engine has read the slot
//
// with the descriptor (`make_tensor_desc` over the parameters) in the entry
// block. The engine skips what lies outside the extents, which is what the
// mask means; a scalar guard of the mask that is false, or an extent that
// is not positive (the launcher then maps the tensor onto a block of zeros),
// moves the box out of the tensor so that nothing is written. The slot's
// swizzle is its row width where that is a hardware mode (32, 64, 128
// bytes), 128 for wider rows of whole 128-byte column blocks of 8-row
// patterns (one box each, docs/IR.md), else none.
//
// A desc_store's scatter (lower-tensor-descs: the descriptor's box as a
// masked_store over its rows, whose row index divides and wraps, so not the
// form above) is taken too: matchBoxGather (BoxGathers.h) reads the box
// back, the descriptor is made again from its extents and strides, and the
// tma_store writes the box at its coordinates, under the rules of the
// fills' copies (TensorDescriptors.h: a pointer parameter, 16-byte aligned
// base and outer strides, the innermost coordinate a known multiple of 16
// bytes, a slot the engine reads) and the ones below.
//
// The rules the engine and the GPU add (as the back end's former planner
// found them): the mask bounds both dimensions (a store map with an unbounded
// extent was an illegal instruction on the H100), and the row extent is a
// known multiple of 16 bytes (the engine writes whole 16-byte pieces of a
// row, even past the extent). The store completes asynchronously: the
// engine writes global memory after `tma_store_wait` (which waits for its
// reads of the slot), unordered with the threads' accesses and other bulk
// copies. So every global access that may run after the store must go
// through another `noalias` parameter than the stored tensor's, itself
// `noalias` (an epilogue's other loads, a persistent kernel's operand
// rings), but for the store itself run again: a store in a loop (the tile
// loop of a persistent kernel) becomes
//
//     %slot = smem_alloc ...
//     tma_store_wait 0 writes       ; the previous run's store has read the
//                                   ; slot and written global memory
//     barrier                       ; ... before any thread writes the slot
//     local_store %slot, %value
//     ...                           ; fences and barrier as above
//     tma_store %desc, [%row, %col], %slot
//                                   ; (no wait: it overlaps the next tile)
//   exit:                           ; of the outermost loop it runs in
//     tma_store_wait 0              ; the last run has read the slot
//
// Thread 0 issues every run's store and waits before the next one, so two
// runs writing the same bytes land in order; the wait comes a whole loop
// iteration after the store it waits for. Nothing after the loop may
// touch the stored bytes (the rule above), so the exits wait only for the
// reads, which must end before the program does (its shared memory goes).
// allocate-shared keeps the slot live over the loop and to that wait, so
// it cannot share bytes with buffers used in the loop (a persistent
// kernel's rings, which hold the next tile's first fills during the
// epilogue): with a shared-memory size given, a store in a loop whose slot
// and every buffer of the function would not fit together is staged in
// ring slots that hold no data instead, or declines. Where the store's
// block issues a prologue a tile ahead (fills of consecutive indices of a
// ring, after the inner loop's drain, every wgmma retired), the slots
// after the filled ones are empty until the inner loop runs again:
//
//     %i = <the slot after the prologue's last>     ; one per piece
//     %v = smem_slot %ring, %i : smem<T<r,c/k>, ..> ; the piece's slot
//     %p = extract_slice %value, 0, j*c/k           ; column piece j
//     local_store %v, %p
//     fence_proxy_async
//     barrier
//     tma_store_wait 0 writes       ; the previous run's stores are written
//     tma_store %desc, [%row, %col + j*c/k], %v    ; one per piece
//   <every block of the loop nest that fills %ring, at its top>:
//     tma_store_wait 0              ; the stores have read the slots
//
// in the fewest column pieces k (a power of two) of which each fits one
// free slot of one ring (ringStagingPieces; the slot's view needs whole
// 1024-byte atoms for a swizzle). insert-barriers orders the staging after
// the other warps' reads of the slots (the barrier before the block's
// fills). async-rings asks (whyNotBulkTensorStore, ringStagingPieces)
// before it takes rings that only fit so.
// Generic stores and atomics that may run before the store are ordered
// before the engine's writes by `fence_proxy_async_global` in every thread
// ahead of the barrier. Declined stores get a remark saying why.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

#include <string>

namespace tritonc::transform {

/// How many column pieces of Tile (a 2-D tile) go into FreeSlots slots of
/// Ring, one piece per slot, each in its staging slot's layout (the
/// fewest, a power of two); 0 if they do not fit.
unsigned ringStagingPieces(const ir::Type *Tile, const ir::Type *Ring, unsigned FreeSlots);

/// Why tensor-stores' rules of form and order keep Store (a tile store) a
/// store, or "" (async-rings asks before the stores' tiles are computed).
std::string whyNotBulkTensorStore(ir::Function &F, ir::Instruction &Store, AnalysisManager &AM);

class TensorStoresPass : public Pass {
public:
  TensorStoresPass() = default;
  /// SharedBytes: the program's shared memory (0: no limit), which a store
  /// in a loop declines to exceed.
  explicit TensorStoresPass(uint64_t SharedBytes) : SharedBytes(SharedBytes) {}
  const char *name() const override { return "tensor-stores"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  /// Why a store in a loop would take more shared memory than SharedBytes,
  /// or "".
  std::string overBudget(const ir::Function &F, const ir::Instruction &Store) const;

  uint64_t SharedBytes = 0;
};

} // namespace tritonc::transform

//===- GlobalOrdering.h - Barrier statements for global accesses -*- C++ -*-===//
//
// A Triton-C program is single-threaded: a load sees every store before it.
// Its tiles are spread over the threads of a CTA, each thread accessing the
// elements its layout gives it, and PTX orders a thread's accesses to one
// address among themselves only. Two accesses of the same memory with the
// same element mapping (the same pointer tile in the same layout: each
// element is touched by the same thread both times; where a layout gives an
// element to several threads, only its owner writes it) need nothing more. Two
// with different mappings (a tile read back reversed, a tile stored and then
// read as a scalar by every thread, a scalar read and then written by every
// thread) need a barrier between them, which orders global memory at CTA
// scope too.
//
// The accesses join the shared-memory barrier placement (BarrierPlacement.h)
// as statements with marks and probes in a space of their own above the
// shared bytes. Memory is split into alias classes: each `restrict` pointer
// parameter is one, the other parameters share one, and everything is one
// class when some access's base parameter is unknown. In a class, each
// element mapping has a key; a scalar access is made by every thread (key
// EveryThread), a scalar atomic by thread 0 (between barriers of its own).
// Each class has two ranges of keys, probed by reads and by writes:
//
//   write, key k:  marks every read key but k (none for EveryThread: each
//                  thread then wrote the element itself) and every write
//                  key but k; probes write key k.
//   read, key k:   marks every write key but k (all of them for EveryThread:
//                  another thread may write before this one read); probes
//                  read key k.
//
// A probe that meets a mark puts a barrier before its access. Atomics both
// read and write. The insert-barriers pass (which places the barriers) and
// the code generator (which checks that its accesses are covered) build the
// same statements from the same keys.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/BarrierPlacement.h"
#include "tritonc/analysis/LinearLayout.h"
#include "tritonc/ir/IR.h"

#include <map>
#include <optional>
#include <tuple>

namespace tritonc::analysis {

class GlobalOrderKeys {
public:
  explicit GlobalOrderKeys(const ir::Function &F) : F(F) {}

  /// The statement of an access through Ptr: a tile access in layout L (the
  /// elements each thread accesses), a scalar one (L null) by every thread
  /// or, for a scalar atomic, by thread 0.
  SyncStatement access(const ir::Value *Ptr, bool Reads, bool Writes, const LinearLayout *L,
                       bool Thread0 = false);
  /// The alias class of the memory Ptr points to.
  uint64_t classOf(const ir::Value *Ptr);

private:
  unsigned layoutNumber(const LinearLayout &L);

  const ir::Function &F;
  std::optional<bool> OneClass;
  std::map<const ir::Argument *, uint64_t> Classes;
  std::vector<LinearLayout> Layouts;
  std::map<std::tuple<const ir::Value *, unsigned, bool>, uint64_t> Keys;
};

} // namespace tritonc::analysis

//===- GlobalOrdering.cpp - Barriers between threads' global accesses -----===//
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
// read and write. Loads that feed a dot through shared rings are copied
// ahead of their place (cp.async, bulk tensor copies), so they stay out of
// rings when a write that may alias them can run before them
// (mayReadProgramWrites); bulk tensor stores order themselves
// (tensorStoreIsOrdered, TensorStores.cpp).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/analysis/PointerBase.h"

#include <tuple>

namespace tritonc::codegen {

using analysis::ByteInterval;
using ir::Instruction;

namespace {

/// The marks and probes lie above every shared-memory byte; each class
/// takes two ranges of KeysPerRange keys (read keys, then write keys).
constexpr uint64_t GlobalSpace = uint64_t(1) << 48;
constexpr uint64_t KeysPerRange = uint64_t(1) << 24;
constexpr uint64_t EveryThreadKey = 0, Thread0Key = 1, FirstLayoutKey = 2;

/// Every key of the range at Base but Key.
void markAllBut(std::vector<ByteInterval> &Marks, uint64_t Base, uint64_t Key) {
  Marks.push_back({Base, Base + Key});
  Marks.push_back({Base + Key + 1, Base + KeysPerRange});
}

} // namespace

uint64_t FunctionLowering::globalClassOf(const ir::Value *Ptr) {
  if (!OneGlobalClass) {
    OneGlobalClass = false;
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        if (I->accessesMemory() && !analysis::pointerBase(I->getOperand(0)))
          OneGlobalClass = true;
  }
  const ir::Argument *Base = analysis::pointerBase(Ptr);
  const ir::Argument *Class = !*OneGlobalClass && Base && Base->attrs().NoAlias ? Base : nullptr;
  return GlobalClasses.try_emplace(Class, GlobalClasses.size()).first->second;
}

void FunctionLowering::globalAccess(const ir::Value *Ptr, bool Reads, bool Writes,
                                    const LinearLayout *L, bool Thread0) {
  uint64_t Key = Thread0 ? Thread0Key : EveryThreadKey;
  if (L) {
    // Where threads share elements, one owner writes each (ownerPredicate)
    // while all of them read it: the writes are another mapping.
    bool Shared = false;
    for (const auto &[Dim, Mask] : L->getFreeVariableMasks())
      Shared |= (Dim == "lane" || Dim == "warp") && Mask != 0;
    std::tuple<const ir::Value *, unsigned, bool> Mapping{Ptr, layoutId(*L), Shared && Writes};
    Key = GlobalKeys.try_emplace(Mapping, FirstLayoutKey + GlobalKeys.size()).first->second;
  }
  if (Key >= KeysPerRange)
    reportInternalError("codegen: too many global access mappings in one function");
  uint64_t ReadKeys = GlobalSpace + globalClassOf(Ptr) * 2 * KeysPerRange;
  uint64_t WriteKeys = ReadKeys + KeysPerRange;
  analysis::SyncStatement S;
  if (Writes) {
    if (Key != EveryThreadKey)
      markAllBut(S.Marks, ReadKeys, Key);
    markAllBut(S.Marks, WriteKeys, Key);
    S.Probes.push_back({WriteKeys + Key, WriteKeys + Key + 1});
  }
  if (Reads) {
    if (Key == EveryThreadKey)
      S.Marks.push_back({WriteKeys, WriteKeys + KeysPerRange});
    else
      markAllBut(S.Marks, WriteKeys, Key);
    S.Probes.push_back({ReadKeys + Key, ReadKeys + Key + 1});
  }
  Sync[CurrentBlock].Statements.push_back(std::move(S));
  SyncLines[CurrentBlock].push_back(B.reserveLine());
}

bool FunctionLowering::mayReadProgramWrites(const Instruction &Load) {
  uint64_t Class = globalClassOf(Load.getOperand(0));
  const ir::BasicBlock *Home = Load.getParent();
  for (const auto &BB : F.blocks()) {
    for (const auto &IP : BB->instructions()) {
      const Instruction &W = *IP;
      if (!W.hasSideEffects() || W.isTerminator() || !W.accessesMemory() ||
          globalClassOf(W.getOperand(0)) != Class)
        continue;
      // W runs before Load if it comes first in Load's block, or if a path
      // leads from W's block to Load's.
      if (BB.get() == Home) {
        for (const auto &J : Home->instructions()) {
          if (J.get() == &Load)
            break;
          if (J.get() == &W)
            return true;
        }
      }
      if (BB->leadsTo(Home))
        return true;
    }
  }
  return false;
}

} // namespace tritonc::codegen

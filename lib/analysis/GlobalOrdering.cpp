//===- GlobalOrdering.cpp - Barrier statements for global accesses --------===//
//
// See GlobalOrdering.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/analysis/GlobalOrdering.h"

#include "tritonc/analysis/PointerBase.h"
#include "tritonc/support/Diagnostics.h"

#include <algorithm>

namespace tritonc::analysis {

namespace {

/// The marks and probes lie above every shared-memory byte (and the
/// abstract units of the insert-barriers pass); each class takes two ranges
/// of KeysPerRange keys (read keys, then write keys).
constexpr uint64_t GlobalSpace = uint64_t(1) << 48;
constexpr uint64_t KeysPerRange = uint64_t(1) << 24;
constexpr uint64_t EveryThreadKey = 0, Thread0Key = 1, FirstLayoutKey = 2;

/// Every key of the range at Base but Key.
void markAllBut(std::vector<ByteInterval> &Marks, uint64_t Base, uint64_t Key) {
  Marks.push_back({Base, Base + Key});
  Marks.push_back({Base + Key + 1, Base + KeysPerRange});
}

} // namespace

uint64_t GlobalOrderKeys::classOf(const ir::Value *Ptr) {
  if (!OneClass) {
    OneClass = false;
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        if (I->accessesMemory() && !pointerBase(I->getOperand(0)))
          OneClass = true;
  }
  const ir::Argument *Base = pointerBase(Ptr);
  const ir::Argument *Class = !*OneClass && Base && Base->attrs().NoAlias ? Base : nullptr;
  return Classes.try_emplace(Class, Classes.size()).first->second;
}

unsigned GlobalOrderKeys::layoutNumber(const LinearLayout &L) {
  auto It = std::find(Layouts.begin(), Layouts.end(), L);
  if (It != Layouts.end())
    return static_cast<unsigned>(It - Layouts.begin());
  Layouts.push_back(L);
  return static_cast<unsigned>(Layouts.size() - 1);
}

SyncStatement GlobalOrderKeys::access(const ir::Value *Ptr, bool Reads, bool Writes,
                                      const LinearLayout *L, bool Thread0) {
  uint64_t Key = Thread0 ? Thread0Key : EveryThreadKey;
  if (L) {
    // Where threads share elements, one owner writes each while all of them
    // read it: the writes are another mapping.
    bool Shared = false;
    for (const auto &[Dim, Mask] : L->getFreeVariableMasks())
      Shared |= (Dim == "lane" || Dim == "warp") && Mask != 0;
    std::tuple<const ir::Value *, unsigned, bool> Mapping{Ptr, layoutNumber(*L), Shared && Writes};
    Key = Keys.try_emplace(Mapping, FirstLayoutKey + Keys.size()).first->second;
  }
  if (Key >= KeysPerRange)
    reportInternalError("global ordering: too many global access mappings in one function");
  uint64_t ReadKeys = GlobalSpace + classOf(Ptr) * 2 * KeysPerRange;
  uint64_t WriteKeys = ReadKeys + KeysPerRange;
  SyncStatement S;
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
  return S;
}

} // namespace tritonc::analysis

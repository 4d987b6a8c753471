//===- PassOptions.cpp - Options of a pass in a pipeline text -------------===//
#include "tritonc/transform/PassOptions.h"

#include "tritonc/transform/AssignLayouts.h"
#include "tritonc/transform/LoopPipeline.h"
#include "tritonc/transform/Passes.h"

#include <charconv>

namespace tritonc::transform {

bool parsePassOptions(const std::string &Text, PassOptionList &Out, std::string &Error) {
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t Comma = Text.find(',', Start);
    std::string Item =
        Text.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    size_t Eq = Item.find('=');
    std::string Key = Item.substr(0, Eq);
    if (Key.empty()) {
      Error = "empty option name in '{" + Text + "}'";
      return false;
    }
    Out.emplace_back(Key, Eq == std::string::npos ? "" : Item.substr(Eq + 1));
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  return true;
}

namespace {

/// Value as a flag: empty (written alone), 1 or 0.
bool flagValue(const std::string &Pass, const std::pair<std::string, std::string> &Option,
               bool &Out, std::string &Error) {
  if (Option.second.empty() || Option.second == "1" || Option.second == "0") {
    Out = Option.second != "0";
    return true;
  }
  Error = "pass '" + Pass + "': option '" + Option.first + "' is a flag (" + Option.first + ", " +
          Option.first + "=1 or " + Option.first + "=0), not '" + Option.second + "'";
  return false;
}

/// Value as a number of bytes: decimal digits, at most 11 of them.
bool bytesValue(const std::string &Pass, const std::pair<std::string, std::string> &Option,
                uint64_t &Out, std::string &Error) {
  const std::string &V = Option.second;
  if (V.empty() || V.size() >= 12 || V.find_first_not_of("0123456789") != std::string::npos) {
    Error =
        "pass '" + Pass + "': option '" + Option.first + "' is a number of bytes, not '" + V + "'";
    return false;
  }
  Out = std::stoull(V);
  return true;
}

/// Value as a number of warps: 1, 2, 4, 8 or 16.
bool numWarpsValue(const std::string &Pass, const std::string &V, unsigned &Out,
                   std::string &Error) {
  unsigned N = 0;
  auto [End, Ec] = std::from_chars(V.data(), V.data() + V.size(), N);
  if (Ec != std::errc() || End != V.data() + V.size() || N == 0 || N > 16 || (N & (N - 1))) {
    Error = "pass '" + Pass + "': num-warps must be 1, 2, 4, 8 or 16, not '" + V + "'";
    return false;
  }
  Out = N;
  return true;
}

/// The target facts of coalesce and assign-layouts: num-warps=N (1, 2, 4, 8,
/// 16), wgmma (sm_90a's warpgroup MMA), tf32, no-mma (FMA dots only).
/// OwnOptions names the pass's other options (taken out of Options by the
/// caller) for the error about an unknown one.
bool layoutsTarget(const std::string &Pass, const PassOptionList &Options,
                   AssignLayoutsTarget &Target, std::string &Error,
                   const std::string &OwnOptions = "") {
  for (const auto &Option : Options) {
    const std::string &Key = Option.first;
    if (Key == "num-warps") {
      if (!numWarpsValue(Pass, Option.second, Target.NumWarps, Error))
        return false;
    } else if (Key == "wgmma" || Key == "tf32" || Key == "no-mma") {
      bool On = false;
      if (!flagValue(Pass, Option, On, Error))
        return false;
      if (Key == "wgmma")
        Target.HasWgmma = On;
      else if (Key == "tf32")
        Target.AllowTF32 = On;
      else
        Target.HasMmaV2 = !On;
    } else {
      Error = "pass '" + Pass + "' has no option '" + Key +
              "' (its options: num-warps=N, wgmma, tf32, no-mma" + OwnOptions + ")";
      return false;
    }
  }
  return true;
}

} // namespace

std::unique_ptr<Pass> createPassWithOptions(const std::string &Name, const PassOptionList &Options,
                                            std::string &Error) {
  if (Name == "assign-layouts" || Name == "coalesce" || Name == "accelerate-dot" ||
      Name == "async-rings" || Name == "tensor-copies") {
    // async-rings{trans}: every `trans` operand of a wgmma or mma.sync dot in
    // column-major slots (AsyncRings.h); async-rings{ring-budget=N}: the
    // bytes a loop's rings may take, as in the back end; the other options
    // are the dots'.
    PassOptionList DotOptions;
    bool TransOperands = false;
    uint64_t RingBudget = 0;
    for (const auto &Option : Options) {
      if (Name == "async-rings" && Option.first == "ring-budget") {
        if (!bytesValue(Name, Option, RingBudget, Error))
          return nullptr;
      } else if (Name != "async-rings" || Option.first != "trans")
        DotOptions.push_back(Option);
      else if (!flagValue(Name, Option, TransOperands, Error))
        return nullptr;
    }
    AssignLayoutsTarget Target;
    if (!layoutsTarget(Name, DotOptions, Target, Error,
                       Name == "async-rings" ? ", trans, ring-budget=N" : ""))
      return nullptr;
    if (Name == "accelerate-dot")
      return createAccelerateDotPass(Target);
    if (Name == "tensor-copies")
      return createTensorCopiesPass(Target);
    if (Name == "async-rings")
      return createAsyncRingsPass(Target, TransOperands, RingBudget);
    return Name == "coalesce" ? createCoalescePass(Target) : createAssignLayoutsPass(Target);
  }
  if (Name == "insert-barriers" || Name == "mma-in-flight") {
    // Only the warp count matters to them (insert-barriers: which layouts
    // cover every warp; mma-in-flight: how many warpgroups read a slot).
    // insert-barriers{lowering}: also the barriers of the lowering's own
    // accesses (InsertBarriers.h); mma-in-flight{warp-specialized}: before
    // warp-specialize, on the kernels it splits (MmaInFlight.h).
    unsigned NumWarps = 4;
    bool Lowering = false, BeforeSplit = false;
    const char *FlagName = Name == "insert-barriers" ? "lowering" : "warp-specialized";
    for (const auto &Option : Options) {
      if (Option.first == FlagName) {
        if (!flagValue(Name, Option, Name == "insert-barriers" ? Lowering : BeforeSplit, Error))
          return nullptr;
        continue;
      }
      if (Option.first != "num-warps") {
        Error = "pass '" + Name + "' has no option '" + Option.first +
                "' (its options: num-warps=N, " + FlagName + ")";
        return nullptr;
      }
      if (!numWarpsValue(Name, Option.second, NumWarps, Error))
        return nullptr;
    }
    return Name == "insert-barriers" ? createInsertBarriersPass(NumWarps, Lowering)
                                     : createMmaInFlightPass(NumWarps, BeforeSplit);
  }
  if (Name == "pipeline") {
    // pipeline{stages=N}: the depth the back end gives it (num_stages, as
    // lowered to what the wgmma rings hold), 1 to 8; 3 without the option.
    unsigned Stages = DefaultPipelineStages;
    for (const auto &Option : Options) {
      const std::string &V = Option.second;
      auto [End, Ec] = std::from_chars(V.data(), V.data() + V.size(), Stages);
      if (Option.first != "stages" || Ec != std::errc() || End != V.data() + V.size() ||
          Stages < 1 || Stages > 8) {
        Error = "pass '" + Name + "' has no option '" + Option.first + "=" + V +
                "' (its option: stages=1..8)";
        return nullptr;
      }
    }
    return createLoopPipelinePass(Stages);
  }
  if (Name == "tensor-stores") {
    // tensor-stores{shared-bytes=N}: the program's shared memory, which a
    // store in a loop declines to exceed with a slot of its own (then it
    // may stage in free ring slots; TensorStores.h), as in the back end.
    uint64_t SharedBytes = 0;
    for (const auto &Option : Options) {
      bool Digits = !Option.second.empty() && Option.second.size() < 12 &&
                    Option.second.find_first_not_of("0123456789") == std::string::npos;
      if (Option.first != "shared-bytes" || !Digits) {
        Error = "pass '" + Name + "' has no option '" + Option.first + "=" + Option.second +
                "' (its option: shared-bytes=N)";
        return nullptr;
      }
      SharedBytes = std::stoull(Option.second);
    }
    return createTensorStoresPass(SharedBytes);
  }
  if (Name == "warp-specialize") {
    // warp-specialize{num-warps=N,producer-warps=P,producer-registers=R}:
    // the consumers' warps (the kernel's own), the producer's warps and its
    // setmaxnreg budget (0: no budgets); WarpSpecialize.h.
    WarpSpecializeOptions Ws;
    for (const auto &Option : Options) {
      unsigned Value = 0;
      const std::string &V = Option.second;
      auto [End, Ec] = std::from_chars(V.data(), V.data() + V.size(), Value);
      bool Number = Ec == std::errc() && End == V.data() + V.size();
      if (Option.first == "num-warps") {
        if (!numWarpsValue(Name, V, Ws.NumWarps, Error))
          return nullptr;
      } else if (Option.first == "producer-warps" && Number && Value >= 1 && Value <= 16) {
        Ws.ProducerWarps = Value;
      } else if (Option.first == "producer-registers" && Number &&
                 (Value == 0 || (Value % 8 == 0 && Value >= 24 && Value <= 256))) {
        Ws.ProducerRegisters = Value;
      } else {
        Error = "pass '" + Name + "' has no option '" + Option.first + "=" + V +
                "' (its options: num-warps=N, producer-warps=1..16, producer-registers=0 or a "
                "multiple of 8 from 24 to 256)";
        return nullptr;
      }
    }
    return createWarpSpecializePass(Ws);
  }
  if (Name == "lower-tensor-descs") {
    // tma: bulk tensor copies (sm_90a); all: also for loads feeding a dot
    // in a loop, which are otherwise left to the pipeline as gathers; rings:
    // tensor-copies fills those gathers' rings with bulk tensor copies.
    bool TensorCopies = false, All = false, Rings = false;
    for (const auto &Option : Options) {
      bool *Flag = Option.first == "tma"     ? &TensorCopies
                   : Option.first == "all"   ? &All
                   : Option.first == "rings" ? &Rings
                                             : nullptr;
      if (!Flag) {
        Error = "pass '" + Name + "' has no option '" + Option.first +
                "' (its options: tma, all, rings)";
        return nullptr;
      }
      if (!flagValue(Name, Option, *Flag, Error))
        return nullptr;
    }
    return createTensorDescLoweringPass(TensorCopies, All, Rings);
  }
  if (!createPassByName(Name))
    Error = "unknown pass '" + Name + "'";
  else
    Error = "pass '" + Name + "' takes no options";
  return nullptr;
}

} // namespace tritonc::transform

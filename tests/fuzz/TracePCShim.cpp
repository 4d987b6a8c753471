//===- TracePCShim.cpp - Coverage for libFuzzer from gcc's trace-pc -------===//
//
// gcc cannot emit the coverage instrumentation of clang's -fsanitize=fuzzer,
// but it can call __sanitizer_cov_trace_pc() at the start of every basic
// block (-fsanitize-coverage=trace-pc). libFuzzer 14 no longer accepts that
// hook, so this file implements it AFL-style: each (previous block, block)
// pair is hashed into a table of 8-bit counters that is registered with
// libFuzzer as if the compiler had emitted inline 8-bit counters. The build
// weakens libFuzzer's own definition of the hook (objcopy -W) so this one is
// used. This file itself must not be instrumented (it is built without the
// fuzzing flags).
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>

// Weak so that fuzz_replay, which has no libFuzzer, links with this file too.
extern "C" __attribute__((weak)) void __sanitizer_cov_8bit_counters_init(uint8_t *Start,
                                                                         uint8_t *Stop);

namespace {
constexpr size_t NumCounters = size_t(1) << 18;
uint8_t Counters[NumCounters];
uintptr_t PrevBlock = 0;
} // namespace

extern "C" void __sanitizer_cov_trace_pc() {
  auto Block = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
  // Mixing in the previous block turns block coverage into edge coverage;
  // the shift keeps A->B and B->A apart.
  Counters[(Block ^ (PrevBlock >> 1)) & (NumCounters - 1)]++;
  PrevBlock = Block;
}

__attribute__((constructor)) static void registerCounters() {
  if (__sanitizer_cov_8bit_counters_init)
    __sanitizer_cov_8bit_counters_init(Counters, Counters + NumCounters);
}

// gcc's trace-cmp also reports floating-point comparisons, which libFuzzer
// has no hooks for; they carry no useful guidance for this code.
extern "C" void __sanitizer_cov_trace_cmpf(float, float) {}
extern "C" void __sanitizer_cov_trace_cmpd(double, double) {}

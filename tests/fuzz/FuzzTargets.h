//===- FuzzTargets.h - The fuzz targets as ordinary functions --*- C++ -*-===//
//
// Each fuzzer source defines its target as a plain function and, unless
// TRITONC_FUZZ_NO_ENTRY is defined, the libFuzzer entry point
// LLVMFuzzerTestOneInput that calls it. The replay driver (FuzzReplay.cpp)
// compiles both sources with TRITONC_FUZZ_NO_ENTRY and calls the plain
// functions, so that one ordinary binary runs both targets over the corpora
// with any compiler.
//
// A target returns normally for every input the compiler handles correctly
// (including inputs it rejects with diagnostics). A finding — an internal
// compiler error, an escaped exception, a print/parse round trip that does
// not reproduce itself, a pass that breaks a valid module — prints what went
// wrong to stderr and calls __builtin_trap(), so that libFuzzer records the
// input as a crash.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace tritonc::fuzz {

/// Compiles Data as Triton-C source through the whole pipeline.
void runFrontendTarget(const uint8_t *Data, size_t Size);
/// Parses Data as Triton-IR text; checks valid modules by printing,
/// re-parsing and optimizing them.
void runIRParserTarget(const uint8_t *Data, size_t Size);
/// Compiles Data as Triton-C source all the way to PTX (sm_80 or sm_90a).
void runPtxTarget(const uint8_t *Data, size_t Size);

/// Prints "fuzz finding (Target): What" and Details to stderr and traps.
[[noreturn]] void reportFinding(const char *Target, const std::string &What,
                                const std::string &Details);

/// Prints M, parses the text back, verifies the result and prints it again;
/// reports a finding unless the second text equals the first.
void checkRoundTrip(const ir::Module &M, const char *Target);

/// A stream that discards everything (pass manager logs).
std::ostream &nullStream();

} // namespace tritonc::fuzz

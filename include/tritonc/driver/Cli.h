//===- Cli.h - The tritonc command line ------------------------*- C++ -*-===//
//
// The whole `tritonc` tool lives here, behind one function, so that main()
// stays a one-liner and the command line can be tested in-process. Commands:
//
//   tritonc compile FILE ...   Triton-C -> Triton-IR (or --emit=pp|ast)
//   tritonc run FILE ... ARGS  compile, then run on the CPU interpreter
//   tritonc opt FILE.tir ...   parse IR text, run passes, print it
//   tritonc cache --info|--clear  the kernel cache on disk
//
// Exit status: 0 on success, 1 when the input has errors (diagnostics on
// stderr) or the kernel fails, 2 for command-line usage errors.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tritonc::driver {

/// Exit statuses of the tool.
enum ExitCode : int { ExitSuccess = 0, ExitFailure = 1, ExitUsage = 2 };

/// Runs the tool on Args (without the program name). Reads stdin for a FILE
/// of "-" from In, writes results to Out unless -o is given, and messages to
/// Err. Never throws.
int runTritonc(const std::vector<std::string> &Args, std::istream &In, std::ostream &Out,
               std::ostream &Err);

/// `tritonc cache --info|--clear` (CliCache.cpp).
int runCacheCommand(const std::vector<std::string> &Args, std::ostream &Out, std::ostream &Err);

/// The general usage text (`tritonc --help`).
std::string generalUsage();

} // namespace tritonc::driver

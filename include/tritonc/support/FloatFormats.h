//===- FloatFormats.h - IEEE half and bfloat16 conversions -----*- C++ -*-===//
//
// The interpreter and the .npy reader need exact conversions between f32 and
// the 16-bit formats; hardware support on the host is not assumed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace tritonc {

/// Rounds to nearest even; overflow gives infinity; NaN stays NaN.
uint16_t floatToHalfBits(float F);
float halfBitsToFloat(uint16_t H);
/// Rounds to nearest even; NaN stays NaN.
uint16_t floatToBFloat16Bits(float F);
float bfloat16BitsToFloat(uint16_t B);
/// Rounds a double to the nearest half value (via exact double->half rounding).
double roundToHalf(double D);
double roundToBFloat16(double D);

} // namespace tritonc

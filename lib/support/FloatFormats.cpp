//===- FloatFormats.cpp ---------------------------------------------------===//
#include "tritonc/support/FloatFormats.h"

#include <cmath>
#include <cstring>

namespace tritonc {

static uint32_t bitsOf(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}
static float floatOf(uint32_t U) {
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}

uint16_t floatToHalfBits(float F) {
  uint32_t X = bitsOf(F);
  uint16_t Sign = static_cast<uint16_t>((X >> 16) & 0x8000u);
  uint32_t Abs = X & 0x7fffffffu;
  if (Abs >= 0x7f800000u) // inf or NaN (keep NaN quiet and non-zero)
    return Sign | (Abs > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (Abs >= 0x477ff000u) // rounds to >= 65520: overflow
    return Sign | 0x7c00u;
  if (Abs < 0x38800000u) { // below the smallest normal half: subnormal or zero
    // Scale into the subnormal grid (units of 2^-24), rounding to nearest even.
    float Scaled = floatOf(Abs) * 16777216.0f; // exact: multiply by 2^24
    float R = std::nearbyint(Scaled);          // default rounding mode: nearest even
    return Sign | static_cast<uint16_t>(R);
  }
  // Normal: rebias exponent and round the 13 dropped mantissa bits.
  uint32_t Mant = Abs & 0x7fffffu;
  uint32_t Exp = (Abs >> 23) - 127 + 15;
  uint32_t H = (Exp << 10) | (Mant >> 13);
  uint32_t Rest = Mant & 0x1fffu;
  if (Rest > 0x1000u || (Rest == 0x1000u && (H & 1u)))
    ++H; // may carry into the exponent, which is the correct result
  return Sign | static_cast<uint16_t>(H);
}

float halfBitsToFloat(uint16_t H) {
  uint32_t Sign = (H & 0x8000u) << 16;
  uint32_t Exp = (H >> 10) & 0x1fu;
  uint32_t Mant = H & 0x3ffu;
  if (Exp == 0x1f)
    return floatOf(Sign | 0x7f800000u | (Mant << 13));
  if (Exp == 0) {
    float V = static_cast<float>(Mant) / 16777216.0f; // Mant * 2^-24
    return Sign ? -V : V;
  }
  return floatOf(Sign | ((Exp - 15 + 127) << 23) | (Mant << 13));
}

uint16_t floatToBFloat16Bits(float F) {
  uint32_t X = bitsOf(F);
  if ((X & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((X >> 16) | 0x40u);
  uint32_t Rounding = 0x7fffu + ((X >> 16) & 1u);
  return static_cast<uint16_t>((X + Rounding) >> 16);
}

float bfloat16BitsToFloat(uint16_t B) { return floatOf(static_cast<uint32_t>(B) << 16); }

// Rounding double -> float -> half could double-round; go through float only
// when the float is exact, else nudge by the sticky bit.
static float toFloatWithSticky(double D) {
  float F = static_cast<float>(D);
  if (static_cast<double>(F) == D || std::isnan(D) || std::isinf(D))
    return F;
  // Make the float's lowest bit sticky so a later rounding sees "above half".
  float Toward =
      static_cast<double>(F) < D ? std::nextafter(F, INFINITY) : std::nextafter(F, -INFINITY);
  // Choose the candidate (F or Toward) whose mantissa is odd: round-to-odd.
  return (bitsOf(F) & 1u) ? F : Toward;
}

double roundToHalf(double D) { return halfBitsToFloat(floatToHalfBits(toFloatWithSticky(D))); }

double roundToBFloat16(double D) {
  return bfloat16BitsToFloat(floatToBFloat16Bits(toFloatWithSticky(D)));
}

} // namespace tritonc

//===- RandomEdit.h - Random edits of text for parser fuzz tests -*- C++ -*-===//
#pragma once

#include <random>
#include <string>

namespace tritonc::test {

/// One random edit of a non-empty Text: replace a character by one of
/// Alphabet, erase 1..MaxErase characters, or insert one of Alphabet.
inline void applyRandomEdit(std::string &Text, std::mt19937 &Rng, const std::string &Alphabet,
                            unsigned MaxErase) {
  size_t Pos = Rng() % Text.size();
  switch (Rng() % 3) {
  case 0:
    Text[Pos] = Alphabet[Rng() % Alphabet.size()];
    break;
  case 1:
    Text.erase(Pos, 1 + Rng() % MaxErase);
    break;
  default:
    Text.insert(Pos, 1, Alphabet[Rng() % Alphabet.size()]);
    break;
  }
}

} // namespace tritonc::test

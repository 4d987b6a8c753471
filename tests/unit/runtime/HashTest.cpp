#include "tritonc/support/Hash.h"

#include <gtest/gtest.h>

#include <string>

using namespace tritonc;

// FIPS 180-4 / NIST CSRC example vectors.
TEST(Sha256Test, StandardVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmno"
                "pqklmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256Test, MillionAs) {
  Sha256 H;
  std::string Chunk(1000, 'a');
  for (int I = 0; I < 1000; ++I)
    H.update(Chunk);
  EXPECT_EQ(Sha256::toHex(H.final()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, IncrementalEqualsOneShotAcrossBlockBoundaries) {
  std::string Data;
  for (int I = 0; I < 300; ++I)
    Data.push_back(char(I * 7 + 3));
  for (size_t Split : {0, 1, 55, 56, 63, 64, 65, 128, 299, 300}) {
    Sha256 H;
    H.update(Data.substr(0, Split));
    H.update(Data.substr(Split));
    EXPECT_EQ(Sha256::toHex(H.final()), sha256Hex(Data)) << "split at " << Split;
  }
}

TEST(Sha256Test, FieldsAreUnambiguous) {
  Sha256 A, B;
  A.updateField("ab");
  A.updateField("c");
  B.updateField("a");
  B.updateField("bc");
  EXPECT_NE(Sha256::toHex(A.final()), Sha256::toHex(B.final()));
}

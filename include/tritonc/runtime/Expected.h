//===- Expected.h - Results that carry an error message ---------*- C++ -*-===//
//
// The runtime reports every failure (no driver, no device, a CUDA error, a
// bad argument) as a value: Status for operations without a result,
// Expected<T> for those with one. Messages are complete sentences meant for
// the user ("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)").
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tritonc::runtime {

/// An error message; wrapped so that Expected<std::string> is unambiguous.
struct Error {
  std::string Message;
};

/// Makes an Error from a message.
inline Error makeError(std::string Message) { return Error{std::move(Message)}; }

/// Success, or an error message.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error E) : Failed(true), Message(std::move(E.Message)) {}
  static Status ok() { return Status(); }

  bool isOk() const { return !Failed; }
  explicit operator bool() const { return !Failed; }
  /// The error message; empty on success.
  const std::string &error() const { return Message; }

private:
  bool Failed = false;
  std::string Message;
};

/// A T, or an error message. T may be move-only.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T Value) : Storage(std::in_place_index<0>, std::move(Value)) {}
  Expected(Error E) : Storage(std::in_place_index<1>, std::move(E)) {}

  bool isOk() const { return Storage.index() == 0; }
  explicit operator bool() const { return isOk(); }

  T &value() { return std::get<0>(Storage); }
  const T &value() const { return std::get<0>(Storage); }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  /// Moves the value out.
  T take() { return std::move(std::get<0>(Storage)); }

  /// The error message; empty on success.
  const std::string &error() const {
    static const std::string Empty;
    return isOk() ? Empty : std::get<1>(Storage).Message;
  }
  /// The error as a Status (ok when a value is held).
  Status status() const { return isOk() ? Status() : Status(std::get<1>(Storage)); }

private:
  std::variant<T, Error> Storage;
};

} // namespace tritonc::runtime

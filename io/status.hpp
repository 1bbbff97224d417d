// status.hpp
// Errors as values at the edge: a Status says what went wrong and where (file,
// line, and the attribute or key involved); Result<T> holds a T or a Status.
// Only tools/ turns a Status into text on stderr and an exit code.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace schedk::io {

class [[nodiscard]] Status {
 public:
  enum class Code { kOk, kInvalidInput, kIoError };

  Status() = default;
  static Status Ok() { return Status(); }
  // Bad input at file:line. `message` names the attribute or key.
  static Status InvalidInput(std::string file, int line, std::string message) {
    return Status(Code::kInvalidInput, std::move(file), line, std::move(message));
  }
  static Status IoError(std::string file, std::string message) {
    return Status(Code::kIoError, std::move(file), 0, std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& message() const { return message_; }
  // "file:line: message", or "file: message" without a line.
  std::string ToString() const {
    if (ok()) return "ok";
    std::string s = file_;
    if (line_ > 0) s += ":" + std::to_string(line_);
    return s + ": " + message_;
  }

 private:
  Status(Code code, std::string file, int line, std::string message)
      : code_(code), file_(std::move(file)), line_(line), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string file_;
  int line_ = 0;
  std::string message_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose, like absl::StatusOr
  Result(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

// Why a value parser refused its text, or nullopt when it took it: the one
// error form below Status. A parser of one value does not know where the
// value stands; its caller, which does, adds the place: a Status naming file,
// line and attribute, a session's refusal, or the command-line option.
using Reason = std::optional<std::string>;

// A non-fatal remark about the input (an unknown attribute kept for dump, an
// ignored load value), with its place.
struct Warning {
  std::string file;
  int line = 0;
  std::string message;
  std::string ToString() const { return file + ":" + std::to_string(line) + ": warning: " + message; }
};

}  // namespace schedk::io

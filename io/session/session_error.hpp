// session_error.hpp
// A refused session request (docs/protocol.md §3): a code, its name, a message,
// and where known the line inside the request's body or file and the object.
// A refused request has changed nothing.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "io/status.hpp"

namespace schedk::io {

enum class ErrorCode : int {
  kBadSyntax = 400,
  kNoSuchObject = 404,
  kStateConflict = 409,
  kLineTooLong = 413,
  kInvalidValue = 422,
  kProtoUnsupported = 426,
  kInternal = 500,
};

inline const char* ErrorName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadSyntax: return "bad-syntax";
    case ErrorCode::kNoSuchObject: return "no-such-object";
    case ErrorCode::kStateConflict: return "state-conflict";
    case ErrorCode::kLineTooLong: return "line-too-long";
    case ErrorCode::kInvalidValue: return "invalid-value";
    case ErrorCode::kProtoUnsupported: return "proto-unsupported";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

struct SessionError {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  int line = 0;        // 0: none
  std::string object;  // "kind:name", or empty
};

// The outcome of a request that returns no data: nullopt when it was applied.
using SessionStatus = std::optional<SessionError>;

inline SessionError Refuse(ErrorCode code, std::string message, std::string object = {}, int line = 0) {
  return SessionError{code, std::move(message), line, std::move(object)};
}

// The session's form of an io Status (status.hpp), the one error form of the
// readers it calls: its message, and its line within the request's body.
inline SessionError FromStatus(const Status& status, ErrorCode code) {
  return Refuse(code, status.message(), {}, status.line());
}

}  // namespace schedk::io

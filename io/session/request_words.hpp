// request_words.hpp
// The words of a session request line (docs/protocol.md §3): the first word (the
// id, then the verb), and the arguments after the verb, each a bare word or
// key=value, where a word or a value may be "double-quoted" (with the escapes
// \" and \\ inside). Also the one way a reply quotes a message. Splitting
// changes no byte of a word except to undo its quoting.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/session/session_error.hpp"
#include "io/status.hpp"

namespace schedk::io {

// One argument of a request: a bare word (possibly "quoted") or key=value.
struct Arg {
  std::string key;    // empty for a bare word
  std::string value;  // the word, or the value
  bool bare = false;
};

// Splits request arguments into `args` (cleared first); returns what is wrong.
Reason SplitArgs(std::string_view text, std::vector<Arg>& args);

// The first word of `text` (trimmed) and the trimmed rest.
std::pair<std::string_view, std::string_view> FirstWord(std::string_view text);

// `message` made printable, between double quotes, with " and \ escaped and
// newlines as blanks: how a reply carries a message or a reason.
std::string Quoted(std::string_view message);

inline SessionError Syntax(std::string message) { return Refuse(ErrorCode::kBadSyntax, std::move(message)); }

}  // namespace schedk::io

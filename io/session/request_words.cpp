#include "io/session/request_words.hpp"

#include "io/ge_value.hpp"
#include "io/untrusted_text.hpp"

namespace schedk::io {

Reason SplitArgs(std::string_view text, std::vector<Arg>& args) {
  args.clear();
  std::size_t i = 0;
  auto quoted = [&](std::string& out) -> bool {  // at the opening quote
    ++i;
    while (i < text.size()) {
      const char c = text[i++];
      if (c == '\\' && i < text.size()) {
        out.push_back(text[i++]);
      } else if (c == '"') {
        return i == text.size() || text[i] == ' ' || text[i] == '\t';
      } else {
        out.push_back(c);
      }
    }
    return false;
  };
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i == text.size()) break;
    Arg arg;
    if (text[i] == '"') {
      arg.bare = true;
      if (!quoted(arg.value)) return std::string("unterminated or misplaced quote");
      args.push_back(std::move(arg));
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '=') ++i;
    if (i == text.size() || text[i] != '=') {
      arg.bare = true;
      arg.value = std::string(text.substr(start, i - start));
      args.push_back(std::move(arg));
      continue;
    }
    arg.key = std::string(text.substr(start, i - start));
    ++i;
    if (i < text.size() && text[i] == '"') {
      if (!quoted(arg.value)) return "unterminated or misplaced quote in " + Quote(arg.key);
    } else {
      const std::size_t vstart = i;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
      arg.value = std::string(text.substr(vstart, i - vstart));
    }
    args.push_back(std::move(arg));
  }
  return std::nullopt;
}

std::pair<std::string_view, std::string_view> FirstWord(std::string_view text) {
  text = Trim(text);
  std::size_t i = 0;
  while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
  return {text.substr(0, i), Trim(text.substr(i))};
}

std::string Quoted(std::string_view message) {
  const std::string text = PrintableMessage(message);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace schedk::io

#include "io/file_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <tbb/parallel_for.h>

#include "io/tuning.hpp"

namespace schedk::io {
namespace {

// A size past any snapshot's (a sparse file, say) is read as a stream.
constexpr off_t kMostReadAtOnce = off_t{1} << 34;

// Reads `size` bytes from offset 0 of the regular file `fd` into `out`, a
// stretch per task. False if a stretch fails or comes short (the file shrank
// while it was read).
bool ReadStretches(int fd, char* out, std::size_t size) {
  constexpr std::size_t kStretch = tuning::kFileReadStretchBytes;
  std::atomic<bool> failed = false;
  tbb::parallel_for(std::size_t{0}, (size + kStretch - 1) / kStretch, [&](std::size_t k) {
    std::size_t at = k * kStretch;
    const std::size_t end = std::min(size, at + kStretch);
    while (at < end && !failed.load(std::memory_order_relaxed)) {
      const ssize_t n = ::pread(fd, out + at, end - at, static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        failed = true;
        return;
      }
      at += static_cast<std::size_t>(n);
    }
  });
  return !failed;
}

Result<FileText> ReadStream(std::FILE* f, const std::string& name) {
  std::string data;
  char buffer[1 << 16];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) data.append(buffer, n);
  if (std::ferror(f) != 0) return Status::IoError(name, "read error");
  return FileText(std::move(data));
}

}  // namespace

Result<FileText> ReadFileText(const std::string& path) {
  if (path == "-") return ReadStream(stdin, "<stdin>");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(path, std::strerror(errno));
  struct stat info {};
  Result<FileText> text = Status::IoError(path, "read error");
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size <= kMostReadAtOnce) {
    const auto size = static_cast<std::size_t>(info.st_size);
    std::unique_ptr<char[]> bytes(new char[std::max<std::size_t>(size, 1)]);  // not zeroed: the reads touch it first
    if (ReadStretches(fd, bytes.get(), size)) text = FileText(std::move(bytes), size);
    ::close(fd);
    return text;
  }
  if (std::FILE* f = ::fdopen(fd, "rb")) {
    text = ReadStream(f, path);
    std::fclose(f);
  } else {
    ::close(fd);
  }
  return text;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  auto text = ReadFileText(path);
  if (!text.ok()) return text.status();
  return std::move(text.value()).TakeString();
}

}  // namespace schedk::io

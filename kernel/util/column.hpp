// column.hpp
// Column<T>: a std::vector whose resize() leaves new elements uninitialised
// when T is trivially copyable and trivially destructible (an implicit-lifetime
// type, so its objects exist once the storage is allocated, even where T has
// default member initialisers, like the typed ids), and default-initialised
// otherwise. For large columns that are written in full right after they are
// sized: the memory is touched once, by the writer (in parallel, say). Debug
// builds fill fresh storage with 0xA5 bytes, so reading an unwritten element
// gives a wrong value that tests see.
#pragma once

#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace schedk {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>::allocate(n);
#ifndef NDEBUG
    // Debug builds (the sanitizer run too) poison fresh storage, so that an
    // element read before it is written shows as a wrong value instead of the
    // zeros of fresh pages.
    std::memset(static_cast<void*>(p), 0xA5, n * sizeof(T));
#endif
    return p;
  }
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    if constexpr (!(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>)) {
      ::new (static_cast<void*>(p)) U;
    }
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using Column = std::vector<T, DefaultInitAllocator<T>>;

}  // namespace schedk

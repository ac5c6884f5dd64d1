#pragma once
// A vector that keeps its first N elements inside the object: a mini-transaction's pages and
// their changed ranges live on the stack, so the common mtr allocates nothing.

#include <cstddef>
#include <new>
#include <utility>

namespace minnow {

template <typename T, size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  ~InlineVector() {
    clear();
    if (data_ != Inline()) ::operator delete(data_, std::align_val_t(alignof(T)));
  }
  InlineVector(InlineVector&& o) noexcept { TakeFrom(o); }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      clear();
      TakeFrom(o);
    }
    return *this;
  }
  InlineVector(const InlineVector&) = delete;
  InlineVector& operator=(const InlineVector&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

  void push_back(T v) {
    if (size_ == cap_) Grow();
    new (data_ + size_) T(std::move(v));
    ++size_;
  }
  // Constructs the element in place (a mini-transaction's page entry is not moved to get there).
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) Grow();
    T* p = new (data_ + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  // Shrinks to `n` elements (n <= size()).
  void truncate(size_t n) {
    while (size_ > n) data_[--size_].~T();
  }
  void clear() { truncate(0); }

 private:
  T* Inline() { return reinterpret_cast<T*>(inline_); }
  void Grow() {
    const size_t ncap = cap_ * 2;
    T* nd = static_cast<T*>(::operator new(ncap * sizeof(T), std::align_val_t(alignof(T))));
    for (size_t i = 0; i < size_; ++i) {
      new (nd + i) T(std::move(data_[i]));
      data_[i].~T();
    }
    if (data_ != Inline()) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = nd;
    cap_ = ncap;
  }
  void TakeFrom(InlineVector& o) {
    for (T& x : o) push_back(std::move(x));
    o.clear();
  }

  alignas(T) std::byte inline_[N * sizeof(T)];
  T* data_ = Inline();
  size_t size_ = 0;
  size_t cap_ = N;
};

}  // namespace minnow

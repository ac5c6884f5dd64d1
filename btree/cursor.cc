// Cursor: a private copy of one leaf, stepped through without latches. Leaving the copy goes to
// the sibling leaf only if the copied page is unchanged since the copy (same page LSN: every
// change stamps a new one), checked under the page's S latch while the sibling is latched
// left-to-right; otherwise the cursor re-seeks from the root past the last key it returned.
// That is what makes "each key at most once, in order" hold while writers split and merge.

#include "btree/cursor.h"

#include <fmt/format.h>

#include <cstring>

#include "btree/btree_internal.h"
#include "btree/leaf_read_ahead.h"

namespace minnow {
namespace {

enum class Step { kMoved, kEnd, kStale };
constexpr int kMaxRetries = 10000;

}  // namespace

struct Cursor::Impl : Cursor::State {
  struct Deleter {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };

  explicit Impl(const BTree::Impl* t)
      : tree(t),
        page(static_cast<std::byte*>(::operator new[](kPageSize, std::align_val_t(64)))),
        read_ahead(t) {
    std::memset(page.get(), 0, kPageSize);
    data = page.get();
  }

  const BTree::Impl* tree;
  std::unique_ptr<std::byte[], Deleter> page;  // the copied leaf (State::data)
  PageNo page_no = kInvalidPageNo;
  Lsn lsn = 0;
  std::string big_value;     // the overflow value once read
  std::string bound;         // the key to reposition around
  LeafReadAhead read_ahead;  // the leaves ahead of forward moves

  Status Position(int i) {
    idx = i;
    valid = true;
    if (Decode(i)) return Status::OK();
    valid = false;
    return Status::Corruption(
        fmt::format("{}: page {}: slot {} out of range", tree->pool->file_name(), page_no, i));
  }

  Status CopyLeaf(const ReadPageGuard& g) {
    RETURN_IF_ERROR(tree->CheckTreePage(g.data(), g.page_no(), 0));
    std::memcpy(page.get(), g.data(), kPageSize);
    ++copies;
    page_no = g.page_no();
    lsn = HeaderPageLsn(page.get());
    PageView v(page.get());
    n = v.n_slots();
    heap_top = v.heap_top();
    return Status::OK();
  }

  // Copies the right sibling of the copied leaf if the copy is still current.
  Result<Step> StepRight() {
    PageNo next = PageView(page.get()).next();
    ASSIGN_OR_RETURN(ReadPageGuard cur, tree->pool->FetchRead(page_no));
    if (HeaderPageLsn(cur.data()) != lsn) return Step::kStale;
    if (next == kInvalidPageNo) return Step::kEnd;
    ASSIGN_OR_RETURN(ReadPageGuard nx, tree->pool->FetchRead(next));
    cur.Release();
    RETURN_IF_ERROR(CopyLeaf(nx));
    return Step::kMoved;
  }

  // Copies the left sibling; latches it before the current page (left-to-right).
  Result<Step> StepLeft() {
    PageNo prev = PageView(page.get()).prev();
    ReadPageGuard left;
    if (prev != kInvalidPageNo) {
      ASSIGN_OR_RETURN(left, tree->pool->FetchRead(prev));
    }
    ASSIGN_OR_RETURN(ReadPageGuard cur, tree->pool->FetchRead(page_no));
    if (HeaderPageLsn(cur.data()) != lsn) return Step::kStale;
    if (prev == kInvalidPageNo) return Step::kEnd;
    cur.Release();
    if (PageView(left.data()).next() != page_no) {
      return Status::Corruption(
          fmt::format("{}: leaf {} is the left sibling of {} but its next "
                      "link is {}",
                      tree->pool->file_name(), prev, page_no, PageView(left.data()).next()));
    }
    RETURN_IF_ERROR(CopyLeaf(left));
    return Step::kMoved;
  }

  // Walks right from the copy until a non-empty leaf; kStale means "re-seek".
  Result<Step> WalkRight() {
    for (;;) {
      ASSIGN_OR_RETURN(Step s, StepRight());
      if (s != Step::kMoved || n > 0) return s;
    }
  }
  Result<Step> WalkLeft() {
    for (;;) {
      ASSIGN_OR_RETURN(Step s, StepLeft());
      if (s != Step::kMoved || n > 0) return s;
    }
  }

  // Positions on the first record > bound (strict) or >= bound.
  Status SeekForward(bool strict) {
    for (int tries = 0; tries < kMaxRetries; ++tries) {
      valid = false;
      {
        ASSIGN_OR_RETURN(ReadPageGuard g,
                         tree->FindLeafRead(BTree::Impl::Target::kKey, AsBytes(bound)));
        bool found = false;
        ASSIGN_OR_RETURN(size_t i, PageView(g.data()).LowerBound(AsBytes(bound), &found));
        if (found && strict) ++i;
        RETURN_IF_ERROR(CopyLeaf(g));
        if (static_cast<int>(i) < n) return Position(static_cast<int>(i));
      }
      ASSIGN_OR_RETURN(Step s, WalkRight());
      if (s == Step::kEnd) return Status::OK();
      if (s == Step::kMoved) return Position(0);
    }
    return Status::Busy("cursor: the tree kept changing while repositioning");
  }

  // Positions on the last record < bound (strict) or <= bound.
  Status SeekBackward(bool strict) {
    for (int tries = 0; tries < kMaxRetries; ++tries) {
      valid = false;
      {
        ASSIGN_OR_RETURN(ReadPageGuard g,
                         tree->FindLeafRead(BTree::Impl::Target::kKey, AsBytes(bound)));
        bool found = false;
        ASSIGN_OR_RETURN(size_t i, PageView(g.data()).LowerBound(AsBytes(bound), &found));
        int pos = (found && !strict) ? static_cast<int>(i) : static_cast<int>(i) - 1;
        RETURN_IF_ERROR(CopyLeaf(g));
        if (pos >= 0) return Position(pos);
      }
      ASSIGN_OR_RETURN(Step s, WalkLeft());
      if (s == Step::kEnd) return Status::OK();
      if (s == Step::kMoved) return Position(n - 1);
    }
    return Status::Busy("cursor: the tree kept changing while repositioning");
  }

  Status SeekEnd(bool first) {
    for (int tries = 0; tries < kMaxRetries; ++tries) {
      valid = false;
      {
        ASSIGN_OR_RETURN(ReadPageGuard g,
                         tree->FindLeafRead(
                             first ? BTree::Impl::Target::kFirst : BTree::Impl::Target::kLast, {}));
        RETURN_IF_ERROR(CopyLeaf(g));
        if (n > 0) return Position(first ? 0 : n - 1);
      }
      ASSIGN_OR_RETURN(Step s, first ? WalkRight() : WalkLeft());
      if (s == Step::kEnd) return Status::OK();
      if (s == Step::kMoved) return Position(first ? 0 : n - 1);
    }
    return Status::Busy("cursor: the tree kept changing while repositioning");
  }

  Status NextSlow() {
    if (!valid) return Status::InvalidArgument("Next() on a cursor that is not valid");
    idx = n;  // past the copy
    bound.assign(reinterpret_cast<const char*>(rec.key.data()), rec.key.size());
    valid = false;
    ASSIGN_OR_RETURN(Step s, WalkRight());
    if (s == Step::kEnd) return Status::OK();
    if (s == Step::kMoved) {
      RETURN_IF_ERROR(Position(0));
      // No latch is held here.
      read_ahead.At({.data = data, .heap_top = heap_top, .n = n, .page_no = page_no}, false);
      return Status::OK();
    }
    return SeekForward(/*strict=*/true);
  }

  Status PrevSlow() {
    if (!valid) return Status::InvalidArgument("Prev() on a cursor that is not valid");
    bound.assign(reinterpret_cast<const char*>(rec.key.data()), rec.key.size());
    valid = false;
    ASSIGN_OR_RETURN(Step s, WalkLeft());
    if (s == Step::kEnd) return Status::OK();
    if (s == Step::kMoved) return Position(n - 1);
    return SeekBackward(/*strict=*/true);
  }
};

Cursor::Cursor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)), st_(impl_.get()) {}
Cursor::~Cursor() = default;

std::unique_ptr<Cursor> BTree::NewCursor() const {
  return std::unique_ptr<Cursor>(new Cursor(std::make_unique<Cursor::Impl>(impl_.get())));
}

Status Cursor::Seek(ConstBytes key) {
  impl_->bound.assign(reinterpret_cast<const char*>(key.data()), key.size());
  return impl_->SeekForward(/*strict=*/false);
}

Status Cursor::SeekForPrev(ConstBytes key) {
  impl_->bound.assign(reinterpret_cast<const char*>(key.data()), key.size());
  return impl_->SeekBackward(/*strict=*/false);
}

Status Cursor::SeekToFirst() { return impl_->SeekEnd(/*first=*/true); }
Status Cursor::SeekToLast() { return impl_->SeekEnd(/*first=*/false); }

Status Cursor::NextSlow() {
  Impl* c = impl_.get();
  if (c->valid && c->idx + 1 < c->n) return c->Position(c->idx + 1);  // reports the corruption
  return c->NextSlow();
}

Status Cursor::Prev() {
  Impl* c = impl_.get();
  if (c->valid && c->idx > 0) {
    --c->idx;
    if (c->Decode(c->idx)) [[likely]]
      return Status::OK();
    return c->Position(c->idx);
  }
  return c->PrevSlow();
}

RecordLocation Cursor::location() const { return {impl_->page_no, impl_->rec.heap_no}; }

void LeafImage::HeapNos(int from, std::vector<HeapNo>* heap_nos, std::vector<uint64_t>* sys8,
                        std::vector<uint8_t>* live) const {
  const size_t count = from < n ? static_cast<size_t>(n - from) : 0;
  // Sized once and filled through pointers: this runs once per leaf of every locking scan.
  heap_nos->resize(count);
  sys8->resize(count);
  if (live != nullptr) live->resize(count);
  HeapNo* h = heap_nos->data();
  uint64_t* t = sys8->data();
  uint8_t* l = live != nullptr ? live->data() : nullptr;
  const std::byte* p = data;
  size_t done = 0;
  for (int i = from; done < count; ++i, ++done) {
    if (done + 8 < count) Prefetch(i + 8);  // the first touch of each record misses the cache
    const size_t off = Load16(p + btree_offset::kSlots + kSlotSize * static_cast<size_t>(i));
    if (off < heap_top || off + kRecordHeaderSize > kPageSize) break;
    const std::byte* r = p + off;
    const size_t key_len = Load16(r + record_offset::kKeyLen);
    const uint8_t flags = std::to_integer<uint8_t>(r[record_offset::kFlags]);
    const bool has_sys = (flags & kRecSys) != 0;
    if (has_sys && off + kRecordHeaderSize + key_len + kSysLen > kPageSize) break;
    h[done] = Load16(r + record_offset::kHeapNo);
    t[done] = has_sys ? Load64(r + record_offset::kKey + key_len) : 0;
    if (l != nullptr) l[done] = (flags & kRecDeleteMark) == 0;
  }
  heap_nos->resize(done);
  sys8->resize(done);
  if (live != nullptr) live->resize(done);
}

void Cursor::RemainingHeapNos(std::vector<HeapNo>* heap_nos, std::vector<uint64_t>* sys8) const {
  if (!impl_->valid) {
    heap_nos->clear();
    sys8->clear();
    return;
  }
  leaf().HeapNos(impl_->idx, heap_nos, sys8);
}

LeafImage Cursor::leaf() const {
  const Impl* c = impl_.get();
  return {.data = c->data, .heap_top = c->heap_top, .n = c->n, .page_no = c->page_no};
}

Result<Cursor::Walk> Cursor::WalkRightLatched(
    const std::function<Result<int>(const LeafImage& leaf)>& visit) {
  Impl* c = impl_.get();
  if (!c->valid) return Status::InvalidArgument("WalkRightLatched() on a cursor that is not valid");
  const BTree::Impl* tree = c->tree;
  ASSIGN_OR_RETURN(ReadPageGuard cur, tree->pool->FetchRead(c->page_no));
  if (HeaderPageLsn(cur.data()) != c->lsn) {
    // The copy is stale: its next link may be too. Re-seek past its last record, as Next does.
    cur.Release();
    RETURN_IF_ERROR(c->Position(c->n - 1));
    c->bound.assign(reinterpret_cast<const char*>(c->rec.key.data()), c->rec.key.size());
    RETURN_IF_ERROR(c->SeekForward(/*strict=*/true));
    return c->valid ? Walk::kCopied : Walk::kEnd;
  }
  // From here on each leaf stays latched until its right sibling is: its next link and records
  // are what the visit saw, without a copy or an LSN check.
  for (;;) {
    const PageNo next = PageView(cur.data()).next();
    if (next == kInvalidPageNo) {
      c->valid = false;
      return Walk::kEnd;
    }
    ASSIGN_OR_RETURN(ReadPageGuard nx, tree->pool->FetchRead(next));
    cur = std::move(nx);
    RETURN_IF_ERROR(tree->CheckTreePage(cur.data(), cur.page_no(), 0));
    const PageView v(cur.data());
    const LeafImage leaf{
        .data = cur.data(), .heap_top = v.heap_top(), .n = v.n_slots(), .page_no = cur.page_no()};
    c->read_ahead.At(leaf, /*latched=*/true);
    if (leaf.n == 0) continue;
    ASSIGN_OR_RETURN(int at, visit(leaf));
    if (at == kNextLeaf) continue;
    if (at == kStopWalk) return Walk::kStopped;
    if (at < 0 || at >= leaf.n) {
      return Status::InvalidArgument("WalkRightLatched(): the visit returned a slot out of range");
    }
    RETURN_IF_ERROR(c->CopyLeaf(cur));
    RETURN_IF_ERROR(c->Position(at));
    return Walk::kCopied;
  }
}

Result<bool> Cursor::WithLeafLatched(const std::function<Status()>& f) const {
  const Impl* c = impl_.get();
  if (!c->valid) return Status::InvalidArgument("WithLeafLatched() on a cursor that is not valid");
  ASSIGN_OR_RETURN(ReadPageGuard g, c->tree->pool->FetchRead(c->page_no));
  if (HeaderPageLsn(g.data()) != c->lsn) return false;
  RETURN_IF_ERROR(f());
  return true;
}

Result<ConstBytes> Cursor::value() {
  Impl* c = impl_.get();
  if (!c->rec.overflow()) return c->rec.value;
  if (!c->big_loaded) {
    // Read through the tree so the chain is read under the leaf's latch; the record may have
    // changed since the copy, and then the current value is returned.
    ASSIGN_OR_RETURN(RecordData rd, c->tree->Get(c->rec.key));
    c->big_value = std::move(rd.value);
    c->big_loaded = true;
  }
  return AsBytes(c->big_value);
}

}  // namespace minnow

#include <fmt/format.h>

#include "engine/iterator_internal.h"

namespace minnow {

Status Iterator::Impl::CheckUsable() const {
  RETURN_IF_ERROR(txn->CheckOpen());
  if (ks->dropped.load(std::memory_order_acquire)) {
    return Status::InvalidArgument(fmt::format("keyspace '{}' was dropped", ks->name));
  }
  return Status::OK();
}

Status Iterator::Impl::MisuseError(const char* what) const {
  RETURN_IF_ERROR(CheckUsable());
  return Status::InvalidArgument(
      fmt::format("Iterator::{} on an iterator that is not Valid()", what));
}

Status Iterator::Impl::Settle(bool forward) {
  for (;;) {
    const RecordView* rec = cursor->current();  // inline: no call per field
    valid = rec != nullptr;
    if (!valid) return Status::OK();
    // TODO(#4): MVCC decides what a delete-marked record means to this transaction's view.
    if (!rec->delete_marked()) [[likely]] {
      key = AsStringView(rec->key);
      overflow = rec->overflow();
      if (!overflow) value = AsStringView(rec->value);
      return Status::OK();
    }
    Status st = forward ? cursor->Next() : cursor->Prev();
    if (!st.ok()) {
      valid = false;
      return st;
    }
  }
}

Iterator::Iterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Iterator::~Iterator() = default;

Status Iterator::Seek(std::string_view key) {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->Seek(AsBytes(key)), true);
}

Status Iterator::SeekForPrev(std::string_view key) {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->SeekForPrev(AsBytes(key)), false);
}

Status Iterator::SeekToFirst() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->SeekToFirst(), true);
}

Status Iterator::SeekToLast() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  return impl_->Settled(impl_->cursor->SeekToLast(), false);
}

Status Iterator::Next() {
  Impl& i = *impl_;
  if (!i.valid || !i.Usable()) [[unlikely]]
    return i.MisuseError("Next");
  if (i.cursor->NextInLeaf()) [[likely]] {
    // The scan's fast path: a live record in the same leaf, cached without a Status per step.
    const RecordView& rec = *i.cursor->current();
    if (!rec.delete_marked()) [[likely]] {
      i.key = AsStringView(rec.key);
      i.overflow = rec.overflow();
      if (!i.overflow) i.value = AsStringView(rec.value);
      return Status::OK();
    }
    return i.Settle(true);
  }
  return i.Settled(i.cursor->Next(), true);
}

Status Iterator::Prev() {
  Impl& i = *impl_;
  if (!i.valid || !i.Usable()) [[unlikely]]
    return i.MisuseError("Prev");
  return i.Settled(i.cursor->Prev(), false);
}

bool Iterator::Valid() const { return impl_->valid && impl_->txn->active(); }

std::string_view Iterator::key() const { return impl_->valid ? impl_->key : std::string_view(); }

Result<std::string_view> Iterator::value() {
  Impl& i = *impl_;
  if (!i.valid || !i.Usable()) [[unlikely]]
    return i.MisuseError("value");
  if (!i.overflow) [[likely]]
    return i.value;
  ASSIGN_OR_RETURN(ConstBytes v, i.cursor->value());
  return AsStringView(v);
}

}  // namespace minnow

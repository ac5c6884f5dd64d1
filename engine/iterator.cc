#include <fmt/format.h>

#include "engine/iterator_internal.h"

namespace minnow {

Status Iterator::Impl::Dropped() const {
  return Status::InvalidArgument(fmt::format("keyspace '{}' was dropped", ks->name));
}

Status Iterator::Impl::SkipDeleted(bool forward) {
  // TODO(#4): MVCC decides what a delete-marked record means to this transaction's view.
  while (cursor->Valid() && cursor->delete_marked()) {
    RETURN_IF_ERROR(forward ? cursor->Next() : cursor->Prev());
  }
  return Status::OK();
}

Iterator::Iterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Iterator::~Iterator() = default;

Status Iterator::Seek(std::string_view key) {
  RETURN_IF_ERROR(impl_->CheckUsable());
  RETURN_IF_ERROR(impl_->cursor->Seek(AsBytes(key)));
  return impl_->SkipDeleted(true);
}

Status Iterator::SeekForPrev(std::string_view key) {
  RETURN_IF_ERROR(impl_->CheckUsable());
  RETURN_IF_ERROR(impl_->cursor->SeekForPrev(AsBytes(key)));
  return impl_->SkipDeleted(false);
}

Status Iterator::SeekToFirst() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  RETURN_IF_ERROR(impl_->cursor->SeekToFirst());
  return impl_->SkipDeleted(true);
}

Status Iterator::SeekToLast() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  RETURN_IF_ERROR(impl_->cursor->SeekToLast());
  return impl_->SkipDeleted(false);
}

Status Iterator::Next() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  if (!impl_->cursor->Valid()) [[unlikely]] {
    return Status::InvalidArgument("Iterator::Next on an iterator that is not Valid()");
  }
  RETURN_IF_ERROR(impl_->cursor->Next());
  return impl_->SkipDeleted(true);
}

Status Iterator::Prev() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  if (!impl_->cursor->Valid()) [[unlikely]] {
    return Status::InvalidArgument("Iterator::Prev on an iterator that is not Valid()");
  }
  RETURN_IF_ERROR(impl_->cursor->Prev());
  return impl_->SkipDeleted(false);
}

bool Iterator::Valid() const { return impl_->txn->active() && impl_->cursor->Valid(); }

std::string_view Iterator::key() const {
  if (!impl_->cursor->Valid()) return {};
  return AsStringView(impl_->cursor->key());
}

Result<std::string_view> Iterator::value() {
  RETURN_IF_ERROR(impl_->CheckUsable());
  if (!impl_->cursor->Valid()) [[unlikely]] {
    return Status::InvalidArgument("Iterator::value on an iterator that is not Valid()");
  }
  if (!impl_->cursor->has_overflow()) [[likely]] {
    return AsStringView(impl_->cursor->inline_value());
  }
  ASSIGN_OR_RETURN(ConstBytes v, impl_->cursor->value());
  return AsStringView(v);
}

}  // namespace minnow

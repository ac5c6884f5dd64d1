// Overflow chains: values too big for a record (page_format.h, "Record size policy") live in a
// chain of kOverflow pages. A chain is written back to front before its record is inserted (so
// each page is written once, in the mini-transaction that allocates it), read while the owning
// leaf is latched, and freed after the mini-transaction that removed its record has committed.
// Nobody can reach a chain except through its record, so chains need no latch coupling.

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "btree/btree_internal.h"

namespace minnow {

Status BTree::Impl::Prepare(ConstBytes key, ConstBytes value, ConstBytes sys, PreparedRecord* out) {
  if (value.size() > kMaxValueSize) {
    return Status::InvalidArgument(
        fmt::format("value of {} bytes is longer than {}", value.size(), kMaxValueSize));
  }
  out->sys_given = !sys.empty();
  if (out->sys_given) std::memcpy(out->sys.data(), sys.data(), kSysLen);
  out->spec.flags = 0;
  out->spec.key = key;
  out->spec.sys = options.sys_fields ? ConstBytes(out->sys.data(), kSysLen) : ConstBytes();
  size_t inline_size = kRecordHeaderSize + key.size() + out->spec.sys.size() + value.size();
  if (inline_size <= kMaxRecordSize) {
    out->spec.value = value;
    return Status::OK();
  }
  ASSIGN_OR_RETURN(out->chain, WriteChain(value));
  EncodeOverflowRef(out->ref.data(), out->chain, value.size());
  out->spec.value = ConstBytes(out->ref.data(), kOverflowRefSize);
  out->spec.flags = kRecOverflow;
  return Status::OK();
}

Result<PageNo> BTree::Impl::WriteChain(ConstBytes value) {
  const size_t cap = kOverflowDataCapacity;
  size_t pages = (value.size() + cap - 1) / cap;
  PageNo next = kInvalidPageNo;
  for (size_t i = pages; i-- > 0;) {
    ConstBytes chunk = value.subspan(i * cap, std::min(cap, value.size() - i * cap));
    MiniTransaction mtr(pool);
    Result<MtrPage> page = mtr.Allocate(PageType::kOverflow, page_flags());
    if (!page.ok()) {
      mtr.Commit();
      if (next != kInvalidPageNo) (void)FreeChain(next);
      return page.status();
    }
    Bytes b = page->Mutate(overflow_offset::kNext,
                           overflow_offset::kData - overflow_offset::kNext + chunk.size());
    std::byte* base = b.data() - overflow_offset::kNext;
    Store32(base + overflow_offset::kNext, next);
    Store32(base + overflow_offset::kDataLen, static_cast<uint32_t>(chunk.size()));
    Store32(base + overflow_offset::kIndexId, root);
    std::memcpy(base + overflow_offset::kData, chunk.data(), chunk.size());
    next = page->page_no();
  }
  return next;
}

namespace {

// Validates one overflow page of the chain behind a record of tree `root`.
Status CheckOverflowPage(const std::string& file, const std::byte* page, PageNo page_no,
                         PageNo root, uint64_t remaining, uint32_t* len) {
  if (HeaderPageType(page) != PageType::kOverflow) {
    return Status::Corruption(fmt::format("{}: page {}: in an overflow chain but its type is {}",
                                          file, page_no, static_cast<int>(HeaderPageType(page))));
  }
  if (Load32(page + overflow_offset::kIndexId) != root) {
    return Status::Corruption(fmt::format("{}: overflow page {} belongs to tree {}, not {}", file,
                                          page_no, Load32(page + overflow_offset::kIndexId), root));
  }
  *len = Load32(page + overflow_offset::kDataLen);
  if (*len == 0 || *len > kOverflowDataCapacity || *len > remaining) {
    return Status::Corruption(
        fmt::format("{}: overflow page {}: bad data length {}", file, page_no, *len));
  }
  return Status::OK();
}

}  // namespace

Result<uint64_t> BTree::Impl::WalkChain(ConstBytes ref, std::string* out, bool exact) const {
  PageNo page_no = OverflowFirst(ref);
  uint64_t remaining = OverflowLen(ref);
  uint64_t pages = 0;
  if (remaining > kMaxValueSize || (exact && remaining == 0)) {
    return Status::Corruption(fmt::format("{}: overflow value of {} bytes in tree {}",
                                          pool->file_name(), remaining, root));
  }
  if (out != nullptr) out->reserve(out->size() + remaining);
  while (remaining > 0) {
    if (page_no == kInvalidPageNo) {
      return Status::Corruption(fmt::format("{}: overflow chain of tree {} ends {} bytes early",
                                            pool->file_name(), root, remaining));
    }
    ASSIGN_OR_RETURN(ReadPageGuard g, pool->FetchRead(page_no));
    uint32_t len = 0;
    RETURN_IF_ERROR(CheckOverflowPage(pool->file_name(), g.data(), page_no, root, remaining, &len));
    if (out != nullptr) {
      out->append(reinterpret_cast<const char*>(g.data() + overflow_offset::kData), len);
    }
    remaining -= len;
    ++pages;
    page_no = Load32(g.data() + overflow_offset::kNext);
  }
  if (exact && page_no != kInvalidPageNo) {
    return Status::Corruption(fmt::format("{}: overflow chain of tree {} is longer than its value",
                                          pool->file_name(), root));
  }
  return pages;
}

Status BTree::Impl::ReadChain(ConstBytes ref, std::string* out) const {
  return WalkChain(ref, out, /*exact=*/false).status();
}

Result<uint64_t> BTree::Impl::CheckChain(ConstBytes ref) const {
  return WalkChain(ref, nullptr, /*exact=*/true);
}

Status BTree::Impl::FreeChain(PageNo first) {
  constexpr size_t kPagesPerMtr = 8;
  PageNo page_no = first;
  size_t guard = 0;
  const size_t max_pages = kMaxValueSize / kOverflowDataCapacity + 2;
  while (page_no != kInvalidPageNo) {
    MiniTransaction mtr(pool);
    for (size_t i = 0; i < kPagesPerMtr && page_no != kInvalidPageNo; ++i) {
      if (++guard > max_pages) {
        return Status::Corruption(
            fmt::format("{}: overflow chain of tree {} loops", pool->file_name(), root));
      }
      ASSIGN_OR_RETURN(MtrPage page, mtr.Write(page_no));
      if (HeaderPageType(page.data()) != PageType::kOverflow ||
          Load32(page.data() + overflow_offset::kIndexId) != root) {
        return Status::Corruption(
            fmt::format("{}: page {} in an overflow chain of tree {} is not "
                        "one of its overflow pages",
                        pool->file_name(), page_no, root));
      }
      PageNo next = Load32(page.data() + overflow_offset::kNext);
      RETURN_IF_ERROR(mtr.Free(page));
      page_no = next;
    }
  }
  return Status::OK();
}

}  // namespace minnow

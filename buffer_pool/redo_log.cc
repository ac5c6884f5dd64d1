// ApplyRedo: decoding the redo record format of redo_log.h.

#include "buffer_pool/redo_log.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "buffer_pool/page_header.h"

namespace minnow {

namespace {

struct Target {
  PageNo page_no;
  std::byte* page;  // nullptr: not wanted, or already at/after this mtr
};

class Parser {
 public:
  explicit Parser(ConstBytes src) : src_(src) {}
  bool done() const { return pos_ >= src_.size(); }
  bool U8(uint8_t* v) {
    if (pos_ >= src_.size()) return false;
    *v = std::to_integer<uint8_t>(src_[pos_++]);
    return true;
  }
  bool Varint(uint64_t* v) {
    const size_t n = GetVarint64(src_.subspan(pos_), v);
    pos_ += n;
    return n != 0;
  }
  const std::byte* Take(size_t n) {
    if (src_.size() - pos_ < n) return nullptr;
    const std::byte* p = src_.data() + pos_;
    pos_ += n;
    return p;
  }
  size_t pos() const { return pos_; }

 private:
  ConstBytes src_;
  size_t pos_ = 0;
};

Status Malformed(size_t pos, const char* what) {
  return Status::Corruption(fmt::format("redo: malformed record at byte {}: {}", pos, what));
}

// One pass over the stream. With `targets` == nullptr it only validates.
Status Walk(ConstBytes records, Lsn end_lsn,
            const std::function<Result<std::byte*>(PageNo)>* page_for,
            std::vector<Target>* targets) {
  Parser in(records);
  while (!in.done()) {
    uint8_t type = 0;
    uint64_t page_no = 0;
    if (!in.U8(&type) || !in.Varint(&page_no)) return Malformed(in.pos(), "truncated header");
    if (page_no >= kInvalidPageNo) return Malformed(in.pos(), "bad page number");
    std::byte* page = nullptr;
    if (targets != nullptr) {
      bool found = false;
      for (const Target& t : *targets) {
        if (t.page_no == page_no) {
          page = t.page;
          found = true;
          break;
        }
      }
      if (!found) {
        Result<std::byte*> r = (*page_for)(static_cast<PageNo>(page_no));
        if (!r.ok()) return std::move(r).TakeStatus();
        page = *r;
        if (page != nullptr && HeaderPageLsn(page) >= end_lsn) page = nullptr;  // already applied
        targets->push_back(Target{static_cast<PageNo>(page_no), page});
      }
    }
    if (type == static_cast<uint8_t>(RedoType::kPageBytes)) {
      uint64_t n = 0;
      if (!in.Varint(&n)) return Malformed(in.pos(), "truncated range count");
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t off = 0;
        uint64_t len = 0;
        if (!in.Varint(&off) || !in.Varint(&len)) return Malformed(in.pos(), "truncated range");
        if (off > kPageSize || len > kPageSize - off) return Malformed(in.pos(), "range overflow");
        const std::byte* bytes = in.Take(len);
        if (bytes == nullptr) return Malformed(in.pos(), "truncated bytes");
        if (page != nullptr) std::memcpy(page + off, bytes, len);
      }
    } else if (type == static_cast<uint8_t>(RedoType::kPageImage)) {
      const std::byte* body = in.Take(kPageBodySize + 4);
      if (body == nullptr) return Malformed(in.pos(), "truncated page image");
      if (page != nullptr) {
        std::memcpy(page + kPageHeaderSize, body, kPageBodySize);
        std::memcpy(page + page_offset::kPageType, body + kPageBodySize, 4);  // type, flags
        Store32(page + page_offset::kPageNo, static_cast<PageNo>(page_no));
      }
    } else if (type == static_cast<uint8_t>(RedoType::kPageMoves)) {
      uint64_t n = 0;
      if (!in.Varint(&n)) return Malformed(in.pos(), "truncated move count");
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t dst = 0, src = 0, len = 0;
        if (!in.Varint(&dst) || !in.Varint(&src) || !in.Varint(&len)) {
          return Malformed(in.pos(), "truncated move");
        }
        if (dst < kPageHeaderSize || src < kPageHeaderSize || len > kPageSize ||
            dst > kPageSize - len || src > kPageSize - len) {
          return Malformed(in.pos(), "move outside the page body");
        }
        if (page != nullptr) std::memmove(page + dst, page + src, len);
      }
    } else if (type == static_cast<uint8_t>(RedoType::kPageImageSparse)) {
      uint64_t gap = 0;
      uint64_t gap_len = 0;
      if (!in.Varint(&gap) || !in.Varint(&gap_len)) return Malformed(in.pos(), "truncated gap");
      if (gap < kPageHeaderSize || gap > kPageSize || gap_len > kPageSize - gap) {
        return Malformed(in.pos(), "gap outside the page body");
      }
      const size_t head = gap - kPageHeaderSize;
      const size_t tail = kPageSize - gap - gap_len;
      const std::byte* body = in.Take(head + tail + 4);
      if (body == nullptr) return Malformed(in.pos(), "truncated sparse page image");
      if (page != nullptr) {
        std::memcpy(page + kPageHeaderSize, body, head);
        std::memset(page + gap, 0, gap_len);
        std::memcpy(page + gap + gap_len, body + head, tail);
        std::memcpy(page + page_offset::kPageType, body + head + tail, 4);  // type, flags
        Store32(page + page_offset::kPageNo, static_cast<PageNo>(page_no));
      }
    } else {
      return Malformed(in.pos(), "unknown record type");
    }
  }
  return Status::OK();
}

}  // namespace

Lsn RedoLog::AppendEncoded(size_t len, const std::function<void(Bytes dst)>& encode) {
  thread_local std::vector<std::byte> buf;
  buf.resize(len);
  encode(Bytes(buf.data(), len));
  return Append(ConstBytes(buf.data(), len));
}

Status ApplyRedo(ConstBytes mtr_records, Lsn end_lsn,
                 const std::function<Result<std::byte*>(PageNo)>& page_for) {
  RETURN_IF_ERROR(Walk(mtr_records, end_lsn, nullptr, nullptr));  // all or nothing
  std::vector<Target> targets;
  RETURN_IF_ERROR(Walk(mtr_records, end_lsn, &page_for, &targets));
  for (const Target& t : targets) {
    if (t.page != nullptr) Store64(t.page + page_offset::kPageLsn, end_lsn);
  }
  return Status::OK();
}

}  // namespace minnow

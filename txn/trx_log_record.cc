#include "txn/trx_log_record.h"

#include <fmt/format.h>

namespace minnow {

namespace {

void PutVarint(std::string* out, uint64_t v) {
  std::byte buf[10];
  const size_t n = PutVarint64(buf, v);
  out->append(reinterpret_cast<const char*>(buf), n);
}

class Reader {
 public:
  explicit Reader(ConstBytes in) : in_(in) {}
  bool Varint(uint64_t* v) {
    const size_t n = GetVarint64(in_.subspan(pos_), v);
    pos_ += n;
    return n != 0;
  }
  bool Bytes(std::string_view* out) {
    uint64_t len = 0;
    if (!Varint(&len) || len > in_.size() - pos_) return false;
    *out = std::string_view(reinterpret_cast<const char*>(in_.data()) + pos_, len);
    pos_ += len;
    return true;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  ConstBytes in_;
  size_t pos_ = 0;
};

}  // namespace

void EncodeTrxRecord(const TrxRecord& r, std::string* out) {
  out->clear();
  out->push_back(static_cast<char>(r.type));
  PutVarint(out, r.trx);
  if (!r.is_undo()) return;
  PutVarint(out, r.keyspace_id);
  PutVarint(out, r.key.size());
  out->append(r.key);
  PutVarint(out, r.value.size());
  out->append(r.value);
}

Result<TrxRecord> DecodeTrxRecord(ConstBytes payload) {
  auto bad = [](const char* what) {
    return Status::Corruption(fmt::format("transaction log record: {}", what));
  };
  if (payload.empty()) return bad("empty");
  TrxRecord r;
  const auto type = std::to_integer<uint8_t>(payload[0]);
  if (type < 1 || type > 5) return bad("unknown type");
  r.type = static_cast<TrxRecordType>(type);
  Reader in(payload.subspan(1));
  if (!in.Varint(&r.trx)) return bad("truncated transaction id");
  if (r.is_undo()) {
    uint64_t ks = 0;
    if (!in.Varint(&ks) || ks > UINT32_MAX) return bad("bad keyspace id");
    r.keyspace_id = static_cast<uint32_t>(ks);
    if (!in.Bytes(&r.key) || !in.Bytes(&r.value)) return bad("truncated key or value");
  }
  if (!in.done()) return bad("trailing bytes");
  return r;
}

}  // namespace minnow

#pragma once
// The catalog: which keyspaces the file holds. A system B+tree (no hidden fields) whose root is
// page 0's system root slot kCatalogRootSlot. Its records:
//
//   key                     value
//   "\0next_keyspace_id"    next_id:u32            ids are handed out once and never reused
//   <keyspace name>         version:u8 (=1)  id:u32  root:u32  compression:u8
//   <keyspace name>         version:u8 (=2)  id:u32  root:u32  compression:u8  owner:u32
//
// Version 2 is written only for a secondary-index keyspace (owner: the id of the keyspace it
// belongs to, KeyspaceOptions::secondary_of); a table's entry stays version 1, so files made
// before owners existed open unchanged (every keyspace a table).
// Valid names never contain '\0', so the meta record cannot collide with a keyspace.
// The Catalog is not thread-safe: the engine serializes its users (DatabaseCore::catalog_latch_).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "btree/btree.h"
#include "buffer_pool/buffer_pool.h"
#include "minnow/db.h"
#include "minnow/options.h"
#include "minnow/status.h"

namespace minnow {

// Ids run from 1 to kMaxKeyspaceId - 1 over the life of a file (the engine indexes an array by
// them); CreateKeyspace fails with kNoSpace after that many creations.
inline constexpr uint32_t kMaxKeyspaceId = 1u << 24;

struct CatalogEntry {
  std::string name;
  uint32_t id = 0;
  PageNo root = kInvalidPageNo;
  KeyspaceOptions options;  // secondary_of is not stored: owner_id is
  uint32_t owner_id = 0;    // 0: a table; else the id of the table it is a secondary index of
};

// A checked tree's figures as CheckIntegrity reports them, under `name` and keyspace `id`.
KeyspaceCheck ToKeyspaceCheck(std::string name, uint32_t id, const CheckReport& r);

// OK if `name` is 1 to 64 characters of [A-Za-z0-9_$.], else kInvalidArgument saying why.
Status ValidateKeyspaceName(std::string_view name);

class Catalog {
 public:
  // Opens the catalog of `pool`'s file, creating an empty one (and setting the system root) if
  // the file has none yet. kCorruption if the root is not a catalog tree.
  static Result<std::unique_ptr<Catalog>> OpenOrCreate(BufferPool* pool);

  // Every keyspace entry, in name order, validated (ids unique and below next_id, roots set).
  Result<std::vector<CatalogEntry>> LoadAll() const;
  uint32_t next_id() const { return next_id_; }
  // Adds `entry` under a fresh id (returned in entry->id) and persists the new next_id.
  // kDuplicateKey if the name exists.
  Status Add(CatalogEntry* entry);
  // kNotFound if absent.
  Status Remove(std::string_view name);

  BTree* tree() const { return tree_.get(); }

 private:
  Catalog(std::unique_ptr<BTree> tree, uint32_t next_id);
  std::unique_ptr<BTree> tree_;
  uint32_t next_id_;
};

}  // namespace minnow

#pragma once
// sqltest's end-of-script integrity check (SQLite's test scripts end with PRAGMA
// integrity_check): a statement that damaged a tree fails its test even when its output was
// right.

#include <string>

#include "minnow/db.h"

namespace minnow::tools {

// Runs `db`'s integrity check (Database::CheckIntegrity: every tree's Check()). Returns "" if it
// finds nothing, else the finding (naming the page) and the trees found sound before it, for
// sqltest's FAIL report. REQUIRES: no transaction writes meanwhile.
std::string IntegrityFindings(Database* db);

}  // namespace minnow::tools

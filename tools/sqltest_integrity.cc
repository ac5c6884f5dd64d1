// sqltest's end-of-script integrity check (see sqltest_integrity.h).

#include "tools/sqltest_integrity.h"

#include <vector>

namespace minnow::tools {

std::string IntegrityFindings(Database* db) {
  std::vector<KeyspaceCheck> trees;
  const Status st = db->CheckIntegrity(&trees);
  if (st.ok()) return "";
  std::string report =
      "sqltest: the integrity check at the end of the script failed: " + st.ToString() + "\n";
  if (!trees.empty()) {
    report += "(sound before it:";
    for (const KeyspaceCheck& t : trees) report += " " + t.name;
    report += ")\n";
  }
  return report;
}

}  // namespace minnow::tools

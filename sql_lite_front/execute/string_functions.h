#pragma once
// MySQL 8.0's string functions beyond the core text functions of expr.cc (REPEAT, SUBSTRING,
// TRIM, REPLACE, LPAD, LOCATE, ...). Positions count characters (bytes for a binary string);
// comparisons are under the arguments' collation (expr.h). NULL in an argument gives NULL,
// except where said.
//
//   ASCII(s)                 the first byte's value (0 for '')
//   ORD(s)                   the first character's bytes as one big-endian number
//   SPACE(n)                 n spaces
//   STRCMP(a, b)             -1, 0 or 1
//   FIELD(s, s1, s2, ...)    the position of the first si equal to s, 0 if none or s is NULL;
//                            compared as strings when all arguments are strings, else as
//                            doubles (MySQL's rule)
//   ELT(n, s1, s2, ...)      the n-th si, NULL if there is none
//   SUBSTRING_INDEX(s, d, n) s up to its n-th d (n > 0) or after its n-th d from the end
//                            (n < 0); d matched byte for byte, as MySQL
//   INSERT(s, pos, len, t)   s with len characters at pos replaced by t (s itself when pos is
//                            outside it)
//   FIND_IN_SET(s, list)     s's position in the comma-separated list, 0 if absent (or if s
//                            holds a comma)
//   UNHEX(s)                 the bytes whose hex digits s holds (binary; NULL for a non-hex
//                            digit)
//   SHA1(s), SHA(s)          40 lowercase hex digits
//   SHA2(s, bits)            SHA-224/256/384/512 in lowercase hex (bits 0 is 256); NULL with
//                            warning 1583 for another bits
//   UUID()                   a version 1 UUID, a new one per call
//   CHAR(n, ... [USING cs])  each non-NULL n's low 32 bits as 1-4 big-endian bytes (a binary
//                            string; USING cs reads them as cs, as CONVERT(.. USING cs)); NULL
//                            arguments are skipped
//   TO_BASE64(s)             base64 with a newline after every 76 characters, as MySQL
//   FROM_BASE64(s)           binary; NULL for text that is not base64
//   QUOTE(s)                 s as a SQL string literal (' \ NUL and Ctrl-Z escaped); QUOTE(NULL)
//                            is the text NULL
//   ISNULL(x)                1 if x is NULL, else 0

#include "sql_lite_front/execute/expr.h"

namespace minnow::sql {

// True for the functions above (the Func values this file evaluates).
bool IsStringFunction(Func f);
// True for the ones whose result is a binary string (UNHEX, FROM_BASE64, CHAR).
bool HasBinaryResult(Func f);
Value EvalStringFunction(const BoundExpr& e, const Row& row, EvalState& st);

}  // namespace minnow::sql

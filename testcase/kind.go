package testcase

import "strings"

// SignatureKind names a statement as finding signatures do: its first
// keyword in upper case, except that an INSERT which updates on a key
// conflict (ON CONFLICT, ON DUPLICATE KEY UPDATE) is an UPSERT — its
// conflicts are a family of bugs of their own, and a suppression of one
// must not reach plain inserts.
func SignatureKind(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	kw := strings.ToUpper(strings.TrimSuffix(f[0], ";"))
	if kw == "INSERT" {
		up := strings.ToUpper(strings.Join(f, " "))
		if strings.Contains(up, " ON CONFLICT") || strings.Contains(up, " ON DUPLICATE KEY UPDATE") {
			return "UPSERT"
		}
	}
	return kw
}

package history

// parseFast decodes a trimmed line in the shape recorders write, without
// encoding/json's reflection and garbage: an object of the fields id,
// session, status, start, end, init, final and ops, each at most once and
// spelled exactly so, integers of at most 18 digits, strings of printable
// ASCII without escapes, ops that ParseOp takes. It appends the ops to ops
// and sets t's other fields; ok is false for anything else (a relational
// transaction, a field in another case, an escape, an error), which the
// caller then decodes with encoding/json, as if parseFast had not run: for
// every line parseFast takes, the result is what that gives.
func parseFast(b []byte, t *Txn, ops []Op) (_ []Op, ok bool) {
	p := fastParser{b: b}
	if !p.lit('{') {
		return ops, false
	}
	var seen uint8
	p.ws()
	if p.lit('}') {
		return ops, p.end()
	}
	for {
		key, ok := p.str()
		if !ok {
			return ops, false
		}
		p.ws()
		if !p.lit(':') {
			return ops, false
		}
		p.ws()
		var bit uint8
		switch string(key) { // no allocation: compared in place
		case "id":
			bit = 1 << 0
			t.ID, ok = p.int()
		case "session":
			bit = 1 << 1
			var v int64
			v, ok = p.int()
			t.Session = int(v)
			ok = ok && int64(t.Session) == v
		case "status":
			bit = 1 << 2
			var s []byte
			if s, ok = p.str(); ok {
				switch string(s) {
				case "ok", "":
					t.Status = OK
				case "fail":
					t.Status = Fail
				case "unknown":
					t.Status = Unknown
				default:
					ok = false
				}
			}
		case "start":
			bit = 1 << 3
			t.Start, ok = p.int()
		case "end":
			bit = 1 << 4
			t.End, ok = p.int()
		case "init":
			bit = 1 << 5
			t.Init, ok = p.bool()
		case "final":
			bit = 1 << 6
			t.Final, ok = p.bool()
		case "ops":
			bit = 1 << 7
			ops, ok = p.ops(ops)
		default:
			return ops, false
		}
		if !ok || seen&bit != 0 {
			return ops, false
		}
		seen |= bit
		p.ws()
		if p.lit('}') {
			return ops, p.end()
		}
		if !p.lit(',') {
			return ops, false
		}
		p.ws()
	}
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) lit(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only JSON whitespace is left.
func (p *fastParser) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// str reads a string of printable ASCII without escapes.
func (p *fastParser) str() ([]byte, bool) {
	if !p.lit('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// int reads a JSON integer of at most 18 digits, so that it fits an int64.
func (p *fastParser) int() (int64, bool) {
	neg := p.lit('-')
	start := p.i
	var v int64
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		v = v*10 + int64(p.b[p.i]-'0')
		p.i++
	}
	d := p.i - start
	if d == 0 || d > 18 || d > 1 && p.b[start] == '0' {
		return 0, false
	}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case '.', 'e', 'E':
			return 0, false // a JSON number, but not an integer
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

func (p *fastParser) bool() (bool, bool) {
	rest := p.b[p.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		p.i += 4
		return true, p.delim()
	case len(rest) >= 5 && string(rest[:5]) == "false":
		p.i += 5
		return false, p.delim()
	}
	return false, false
}

// delim reports whether a literal ended: what follows it is not part of a
// longer word.
func (p *fastParser) delim() bool {
	if p.i == len(p.b) {
		return true
	}
	switch p.b[p.i] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

// ops reads an array of op strings.
func (p *fastParser) ops(ops []Op) ([]Op, bool) {
	if !p.lit('[') {
		return ops, false
	}
	p.ws()
	if p.lit(']') {
		return ops, true
	}
	for {
		s, ok := p.str()
		if !ok {
			return ops, false
		}
		op, ok := fastOp(s)
		if !ok {
			return ops, false
		}
		ops = append(ops, op)
		p.ws()
		if p.lit(']') {
			return ops, true
		}
		if !p.lit(',') {
			return ops, false
		}
		p.ws()
	}
}

// fastOp is ParseOp on printable ASCII, for the ops it takes; ok is false
// for the others (ParseOp then says why, or takes one fastOp does not).
func fastOp(s []byte) (op Op, ok bool) {
	s = trimSpaces(s)
	if len(s) < 6 || s[1] != '(' || s[len(s)-1] != ')' {
		return op, false
	}
	switch s[0] {
	case 'r':
		op.Kind = R
	case 'w':
		op.Kind = W
	default:
		return op, false
	}
	in := s[2 : len(s)-1]
	comma := -1
	for i, c := range in {
		if c == ',' {
			comma = i
			break
		}
	}
	if comma < 0 {
		return op, false
	}
	if op.Key, ok = fastInt(trimSpaces(in[:comma])); !ok {
		return op, false
	}
	op.Value, ok = fastInt(trimSpaces(in[comma+1:]))
	return op, ok
}

// trimSpaces trims the only white space printable ASCII has.
func trimSpaces(s []byte) []byte {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// fastInt is strconv.ParseInt(s, 10, 64) for a sign and at most 18
// digits.
func fastInt(s []byte) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

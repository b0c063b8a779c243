package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docPages are the pages a newcomer reads: the README and docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"../../README.md"}
	err := filepath.WalkDir("../../docs", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// docCommands returns the txlab command lines of a page: in its code
// blocks, lines that start with `$ txlab`, `txlab` or `go run ./cmd/txlab`
// (an output line that starts with "txlab " — a summary's first line —
// is left out when it does not name a subcommand).
func docCommands(t *testing.T, page string) [][]string {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			continue
		}
		line = strings.TrimPrefix(line, "$ ")
		switch {
		case strings.HasPrefix(line, "go run ./cmd/txlab "):
			line = "txlab " + strings.TrimPrefix(line, "go run ./cmd/txlab ")
		case strings.HasPrefix(line, "txlab "):
		default:
			continue
		}
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		for _, sep := range []string{" | ", " && ", " > ", " 2>", "; "} {
			if i := strings.Index(line, sep); i >= 0 {
				line = line[:i]
			}
		}
		words, err := splitWords(line)
		if err != nil || len(words) < 2 {
			continue
		}
		out = append(out, words[1:])
	}
	return out
}

// TestDocCommandsParse keeps every txlab command line of the README and
// docs/ true: its subcommand exists and every flag it gives parses on that
// subcommand, so a renamed flag or command breaks this test, not a reader.
func TestDocCommandsParse(t *testing.T) {
	n := 0
	for _, page := range docPages(t) {
		for _, args := range docCommands(t, page) {
			root := newRoot(&profiles{})
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == root {
				// An output line ("txlab fuzz on mariadb …" starts like a
				// command): only lines that name a subcommand count.
				if strings.HasPrefix(args[0], "-") {
					t.Errorf("%s: txlab %s: %v", page, strings.Join(args, " "), err)
				}
				continue
			}
			if strings.Contains(strings.Join(args, " "), " on ") {
				continue // a summary's first line, not a command
			}
			n++
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: txlab %s: %v", page, strings.Join(args, " "), err)
			}
		}
	}
	if n < 10 {
		t.Errorf("found only %d txlab command lines in the docs: the extraction is broken", n)
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks: every relative link in the README and docs/ names a file
// that exists and, with a #fragment, a heading of that page.
func TestDocLinks(t *testing.T) {
	for _, page := range docPages(t) {
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(body), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(link, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), file)
			}
			info, err := os.Stat(target)
			if err != nil {
				t.Errorf("%s: link %s: %v", page, link, err)
				continue
			}
			if frag == "" || info.IsDir() {
				continue
			}
			if !hasAnchor(t, target, frag) {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", page, link, frag, target)
			}
		}
	}
}

// hasAnchor reports whether a Markdown page has a heading whose GitHub
// anchor is frag.
func hasAnchor(t *testing.T, page, frag string) bool {
	body, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		if anchor(strings.TrimLeft(line, "# ")) == frag {
			return true
		}
	}
	return false
}

// anchor is GitHub's anchor of a heading: lower case, punctuation other
// than - and _ dropped, spaces made -.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// splitWords splits a shell command line into words, with '…' and "…"
// quoting.
func splitWords(line string) ([]string, error) {
	var words []string
	var b strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, b.String()), false
				b.Reset()
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed quote in %q", line)
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

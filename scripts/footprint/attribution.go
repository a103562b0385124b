package main

import (
	"debug/buildinfo"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The module keys that are not module paths.
const (
	stdModule   = "std"   // the standard library and the runtime
	otherModule = "other" // bytes no symbol or package accounts for
)

// modules says which Go module a package or a symbol belongs to, from the
// module list the go command wrote into the binary.
type modules struct {
	main string
	deps []string // longest first, so that nested modules win
}

func readModules(binary string) (modules, error) {
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return modules{}, fmt.Errorf("reading the module list of %s (the -modules table needs it): %w", binary, err)
	}
	m := modules{main: info.Main.Path}
	for _, d := range info.Deps {
		m.deps = append(m.deps, d.Path)
	}
	return newModules(m.main, m.deps), nil
}

func newModules(main string, deps []string) modules {
	deps = slices.Clone(deps)
	slices.SortFunc(deps, func(a, b string) int { return len(b) - len(a) })
	return modules{main: main, deps: deps}
}

// ofPackage names the module of an import path: the main module for
// package main, the longest module path that is the package or a parent
// of it, the standard library when the first path element has no dot (as
// the go command decides), and other for what is none of these.
func (m modules) ofPackage(pkg string) string {
	if pkg == "main" || pkg == m.main || strings.HasPrefix(pkg, m.main+"/") {
		return m.main
	}
	for _, d := range m.deps {
		if pkg == d || strings.HasPrefix(pkg, d+"/") {
			return d
		}
	}
	first, _, _ := strings.Cut(pkg, "/")
	if first != "" && !strings.ContainsAny(first, ". ()[]{}*,$:") {
		return stdModule
	}
	return otherModule
}

// ofSymbol names the module of a linker symbol.
func (m modules) ofSymbol(name string) string {
	pkg, ok := symbolPackage(name)
	if !ok {
		return otherModule
	}
	return m.ofPackage(pkg)
}

// symbolPrefixes are what the linker puts before a package-qualified name
// for code and data it generates for a type: equality and hash functions,
// itabs (whose name starts with the concrete type), pointer types.
var symbolPrefixes = []string{"type:.eq.", "type:.hash.", "type:", "go:itab.", "*"}

// symbolPackage finds the import path in a symbol name such as
// "github.com/a/b%2ev2.(*T[go.shape.int]).M": the text before the first dot
// after the last slash, once generic arguments (which hold other paths)
// are dropped and the dots the linker escapes in a last path element are
// restored. Names that hold no package, such as assembly constants or
// methods of anonymous structs, report false.
func symbolPackage(name string) (string, bool) {
	for trimmed := true; trimmed; {
		trimmed = false
		for _, p := range symbolPrefixes {
			if rest, ok := strings.CutPrefix(name, p); ok {
				name, trimmed = rest, true
			}
		}
	}
	name, _, _ = strings.Cut(name, ",") // an itab's interface follows its type
	name = dropBrackets(name)
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot <= 0 {
		return "", false
	}
	pkg := name[:slash+1+dot]
	if strings.ContainsAny(pkg, " ()[]{}*,$:") {
		return "", false
	}
	return unescapePath(pkg), true
}

// dropBrackets removes bracketed text, nested or not: generic type
// arguments and array lengths.
func dropBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unescapePath undoes the linker's %xx escapes ("yaml%2ev3" for "yaml.v3"),
// leaving anything that does not decode as it was.
func unescapePath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if c, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(c))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

package legacy

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// seg is one step of a field path: a name, and whether it stands for every
// element of the array of that name ("summaryDetails[]").
type seg struct {
	name string
	each bool
}

// parsePath splits "summaryDetails[].label" into its steps.
func parsePath(p string) []seg {
	var out []seg
	for _, part := range strings.Split(p, ".") {
		name, each := strings.CutSuffix(part, "[]")
		out = append(out, seg{name: name, each: each})
	}
	return out
}

// concrete writes a path with the array indices idx in place of "[]":
// summaryDetails[1].label.
func concrete(segs []seg, idx []int) string {
	var b strings.Builder
	k := 0
	for i, s := range segs {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
		if s.each {
			b.WriteString("[" + strconv.Itoa(idx[k]) + "]")
			k++
		}
	}
	return b.String()
}

// hit is a value found at a path, with the indices of its arrays.
type hit struct {
	idx   []int
	value any
}

// collect finds the non-null values at segs in a decoded JSON tree.
func collect(node any, segs []seg, idx []int, out *[]hit) {
	if len(segs) == 0 {
		if node != nil {
			*out = append(*out, hit{idx: idx, value: node})
		}
		return
	}
	m, _ := node.(map[string]any)
	child := m[segs[0].name]
	if !segs[0].each {
		collect(child, segs[1:], idx, out)
		return
	}
	arr, _ := child.([]any)
	for i, el := range arr {
		collect(el, segs[1:], append(slices.Clone(idx), i), out)
	}
}

// set stores v at segs (arrays at the indices idx) in a JSON tree, making
// the objects and arrays on the way, and returns what was there before.
func set(root map[string]any, segs []seg, idx []int, v any) any {
	m, k := root, 0
	for i, s := range segs {
		last := i == len(segs)-1
		if !s.each {
			if last {
				prev := m[s.name]
				m[s.name] = v
				return prev
			}
			m = object(m, s.name)
			continue
		}
		arr, _ := m[s.name].([]any)
		for len(arr) <= idx[k] {
			arr = append(arr, nil)
		}
		m[s.name] = arr
		if last {
			prev := arr[idx[k]]
			arr[idx[k]] = v
			return prev
		}
		next, ok := arr[idx[k]].(map[string]any)
		if !ok {
			next = map[string]any{}
			arr[idx[k]] = next
		}
		m, k = next, k+1
	}
	return nil
}

// object returns the object at m[name], making it when absent.
func object(m map[string]any, name string) map[string]any {
	next, ok := m[name].(map[string]any)
	if !ok {
		next = map[string]any{}
		m[name] = next
	}
	return next
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// pattern turns "displayInfo[1].key" into "displayInfo[].key" and [1].
func pattern(p string) (string, []int) {
	var idx []int
	for _, m := range indexRE.FindAllString(p, -1) {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		idx = append(idx, n)
	}
	return indexRE.ReplaceAllString(p, "[]"), idx
}

// fill puts the indices idx into the "[]" of a pattern, in order.
func fill(p string, idx []int) string {
	for _, n := range idx {
		i := strings.Index(p, "[]")
		if i < 0 {
			break
		}
		p = p[:i] + "[" + strconv.Itoa(n) + "]" + p[i+2:]
	}
	return p
}

// under reports whether path is prefix or lies below it, and what follows
// the prefix.
func under(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix)
	return rest, ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// commonParent is the longest run of leading path steps that every path
// shares and that is the parent of each (never a whole path).
func commonParent(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	common := strings.Split(paths[0], ".")
	for _, p := range paths {
		parts := strings.Split(p, ".")
		n := 0
		for n < len(common) && n < len(parts)-1 && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, ".")
}

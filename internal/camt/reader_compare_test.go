package camt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/bankrail/bankrail/internal/errs"
)

// reading is what a read found: the message, the handler's calls in
// order (an entry's Problem as its text) and the error's text.
type reading struct {
	msg    Message
	events []string
	err    string
}

// record is a Handler that writes down every call.
type record struct{ events []string }

func (r *record) Report(rep Report) error {
	closing := "none"
	if rep.Closing != nil {
		closing = fmt.Sprintf("%#v", *rep.Closing)
	}
	rep.Closing = nil
	r.events = append(r.events, fmt.Sprintf("report %#v closing %s", rep, closing))
	return nil
}

func (r *record) Entry(rep Report, e Entry) error {
	problem := ""
	if e.Problem != nil {
		problem, e.Problem = e.Problem.Error(), nil
	}
	r.events = append(r.events, fmt.Sprintf("entry of %s: %#v problem %q", rep.ID, e, problem))
	return nil
}

func readWith(read func(io.Reader, Handler) (Message, error), r io.Reader) reading {
	rec := &record{}
	m, err := read(r, rec)
	out := reading{msg: m, events: rec.events}
	if err != nil {
		out.err = err.Error()
	}
	return out
}

// sameReading fails unless Read (fed through each of the readers that
// cut the input differently) reads doc as encoding/xml did, or both
// refuse it.
func sameReading(t *testing.T, name string, doc []byte) reading {
	t.Helper()
	want := readWith(readStd, bytes.NewReader(doc))
	for _, feed := range []struct {
		name string
		r    io.Reader
	}{
		{"whole", bytes.NewReader(doc)},
		{"one byte at a time", iotest.OneByteReader(bytes.NewReader(doc))},
		{"half reads", iotest.HalfReader(bytes.NewReader(doc))},
		{"data with EOF", iotest.DataErrReader(bytes.NewReader(doc))},
	} {
		got := readWith(Read, feed.r)
		if (want.err == "") != (got.err == "") {
			t.Fatalf("%s, %s: error %q, encoding/xml's %q", name, feed.name, got.err, want.err)
		}
		if want.err != "" {
			continue
		}
		if got.msg != want.msg {
			t.Fatalf("%s, %s: message %+v, encoding/xml's %+v", name, feed.name, got.msg, want.msg)
		}
		if !reflect.DeepEqual(got.events, want.events) {
			for i := range min(len(got.events), len(want.events)) {
				if got.events[i] != want.events[i] {
					t.Fatalf("%s, %s: call %d\n%s\nencoding/xml's\n%s", name, feed.name, i, got.events[i], want.events[i])
				}
			}
			t.Fatalf("%s, %s: %d calls, encoding/xml's %d", name, feed.name, len(got.events), len(want.events))
		}
	}
	return want
}

// TestReadAsEncodingXML: every fixture (each version .02 to .08 of both
// messages, the documentation's examples, a 300-entry statement of 170 KB,
// past the scanner's first buffer) is read exactly as encoding/xml read
// it, whatever the sizes of the reads that bring the file in.
func TestReadAsEncodingXML(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "*.xml"))
	if err != nil || len(files) != 14 {
		t.Fatalf("fixtures %v (%v), want 14", files, err)
	}
	examples, _ := filepath.Glob(filepath.Join("..", "..", "docs", "examples", "camt05*.xml"))
	for _, file := range append(files, examples...) {
		doc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if r := sameReading(t, file, doc); r.err != "" || len(r.events) == 0 {
			t.Fatalf("%s: %q, %d calls", file, r.err, len(r.events))
		}
	}
	if r := sameReading(t, "300 entries", benchDoc(t, 300)); len(r.events) != 301 {
		t.Fatalf("%d calls, want 301", len(r.events))
	}
}

// stmt is a camt.053.001.02 document of one statement whose first entry
// holds body.
func stmt(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>M</MsgId></GrpHdr><Stmt><Id>S</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
<Ntry><AcctSvcrRef>R1</AcctSvcrRef><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>` + body + `</Ntry></Stmt></BkToCstmrStmt></Document>`
}

// tx is stmt with one transaction whose TxDtls holds body.
func tx(body string) string { return stmt(`<NtryDtls><TxDtls>` + body + `</TxDtls></NtryDtls>`) }

// TestReadXMLFeatures: what a bank's software may write that the fixtures
// do not show is read as encoding/xml read it: entities and character
// references, CDATA, comments, processing instructions, a DOCTYPE,
// prefixes, single quotes, CR LF, a byte order mark, Latin-1, huge text.
func TestReadXMLFeatures(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 3<<20)
	latin1 := strings.Replace(tx(`<RltdPties><Dbtr><Nm>J`+"\xfc"+`rgen &amp; S`+"\xf6"+`hne</Nm></Dbtr></RltdPties>`), "UTF-8", "ISO-8859-1", 1)
	prefixed := strings.NewReplacer("</", "</ns:", "<?", "<?", "<", "<ns:", `xmlns=`, `xmlns:ns=`).Replace(tx(`<Refs><EndToEndId>E2E</EndToEndId></Refs>`))
	for _, tc := range []struct{ name, doc, want string }{
		{"entities in a name", tx(`<RltdPties><Dbtr><Nm>Smith &amp; S&#246;hne &lt;AG&gt; &quot;x&quot; &apos;y&apos; &#xE9;&#x1F600;</Nm></Dbtr></RltdPties>`), `Smith & Söhne <AG> \"x\" 'y' é😀`},
		{"entities in references", tx(`<Refs><EndToEndId>a&amp;b</EndToEndId></Refs><RmtInf><Ustrd>order &#35;1 &amp; 2</Ustrd><Strd><CdtrRefInf><Ref>RF&#49;8</Ref></CdtrRefInf></Strd></RmtInf>`), `order #1 & 2`},
		{"CDATA", tx(`<RmtInf><Ustrd><![CDATA[a <b> & c]]></Ustrd><Ustrd>x<![CDATA[]]>y<![CDATA[z]]]]></Ustrd></RmtInf>`), `a <b> & c`},
		{"comments and PIs", tx(`<!-- a comment with <tags> & stuff --><RmtInf><?pi data?><Ustrd>re<!-- inside -->f</Ustrd></RmtInf>`), `ref`},
		{"DOCTYPE", strings.Replace(tx(`<RmtInf><Ustrd>u</Ustrd></RmtInf>`), "<Document", "<!DOCTYPE Document [ <!ELEMENT Document ANY> <!-- c > --> <!ATTLIST x y CDATA '>'> ]>\n<Document", 1), `{"u"}`},
		{"prefixes", prefixed, `E2E`},
		{"prefix and default namespace", strings.Replace(strings.Replace(tx(``), "<Document xmlns=", `<d:Document xmlns:d="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02" xmlns=`, 1), "</Document>", "</d:Document>", 1), `camt.053`},
		{"single quotes and spaces", strings.Replace(tx(``), `<Amt Ccy="EUR">`, "<Amt\n  Ccy = 'EUR' other=\"a&gt;b\" >", 1), `EUR`},
		{"attribute entities", strings.Replace(tx(``), `Ccy="EUR"`, `Ccy=" E&#85;R "`, 1), `EUR`},
		{"CR LF", strings.ReplaceAll(tx(`<RmtInf><Ustrd>line 1`+"\r\n"+`line 2`+"\r"+`3</Ustrd></RmtInf>`), "\n", "\r\n"), "line 1\\n\\nline 2\\n3"},
		{"byte order mark", "\ufeff" + strings.Replace(tx(``), `<?xml version="1.0" encoding="UTF-8"?>`, "", 1), `camt.053`},
		{"self-closing elements", tx(`<Refs/><RmtInf><Ustrd/><Ustrd>u</Ustrd></RmtInf><RtrInf/>`), `Return:true`},
		{"Latin-1", latin1, `Jürgen & Söhne`},
		{"windows-1252 label", strings.Replace(latin1, "ISO-8859-1", "windows-1252", 1), `Jürgen & Söhne`},
		{"huge wanted text", tx(`<RmtInf><Ustrd>` + huge + `</Ustrd></RmtInf>`), huge[:100]},
		{"huge text not wanted", tx(`<Purp><Prtry>` + huge + `</Prtry></Purp><RmtInf><Ustrd>after</Ustrd></RmtInf>`), `after`},
		{"whitespace around values", tx(`<Refs><EndToEndId>
			E2E-1
		</EndToEndId></Refs>`), `"E2E-1"`},
		{"directive opening with <", tx(`<RmtInf><Ustrd>a<!<x>b</Ustrd></RmtInf>`), `{"ab"}`},
		{"currency in lower case", strings.Replace(tx(``), `Ccy="EUR"`, `Ccy="eur"`, 1), `the currency \"eur\" is not an ISO 4217 currency`},
		{"two statements", strings.Replace(tx(``), "</Stmt>", "</Stmt><Stmt><Id>S2</Id><Acct><Id><Othr><Id>X</Id></Othr></Id></Acct></Stmt>", 1), `S2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := sameReading(t, tc.name, []byte(tc.doc))
			if r.err != "" || !strings.Contains(strings.Join(r.events, "\n")+r.msg.String(), tc.want) {
				t.Fatalf("error %q, calls %.2000s; want %q in them", r.err, r.events, tc.want)
			}
		})
	}
}

// TestReadMalformed: a document that is not well-formed XML is refused,
// as encoding/xml refused it, with errs.BadRequest naming its line.
func TestReadMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{"mismatched tags", tx(`<Refs></RmtInf>`), "element <Refs> closed by </RmtInf>"},
		{"mismatched prefix", strings.Replace(tx(`<a:Refs></b:Refs>`), "<Document ", `<Document xmlns:a="x" xmlns:b="x" `, 1), "in space a closed by </Refs> in space b"},
		{"end without start", tx(``) + `</Document>`, "unexpected end element </Document>"},
		{"unknown entity", tx(`<RmtInf><Ustrd>&nbsp;</Ustrd></RmtInf>`), "invalid character entity &nbsp;"},
		{"entity without semicolon", tx(`<RmtInf><Ustrd>a & b</Ustrd></RmtInf>`), "invalid character entity & (no semicolon)"},
		{"entity in a skipped element", tx(`<Purp><Cd>&bogus;</Cd></Purp>`), "invalid character entity &bogus;"},
		{"character reference to NUL", tx(`<RmtInf><Ustrd>&#0;</Ustrd></RmtInf>`), "illegal character code U+0000"},
		{"character reference out of range", tx(`<RmtInf><Ustrd>&#x110000;</Ustrd></RmtInf>`), "invalid character entity &#x110000;"},
		{"control character", tx("<RmtInf><Ustrd>a\x01b</Ustrd></RmtInf>"), "illegal character code U+0001"},
		{"invalid UTF-8", tx("<RmtInf><Ustrd>J\xfcrgen</Ustrd></RmtInf>"), "invalid UTF-8"},
		{"]]> in text", tx(`<RmtInf><Ustrd>a]]>b</Ustrd></RmtInf>`), "unescaped ]]> not in CDATA section"},
		{"< in an attribute", strings.Replace(tx(``), `Ccy="EUR"`, `Ccy="E<R"`, 1), "unescaped < inside quoted string"},
		{"unquoted attribute", strings.Replace(tx(``), `Ccy="EUR"`, `Ccy=EUR`, 1), "unquoted or missing attribute value"},
		{"attribute without value", strings.Replace(tx(``), `Ccy="EUR"`, `Ccy`, 1), "attribute name without = in element"},
		{"bad name", tx(`<1Refs></1Refs>`), "invalid XML name: 1Refs"},
		{"no name", tx(`< Refs></Refs>`), "expected element name after <"},
		{"two colons", tx(`<a:b:c></a:b:c>`), "expected element name after <"},
		{"-- in a comment", tx(`<!-- a -- b -->`), `invalid sequence "--" not allowed in comments`},
		{"bad CDATA opening", tx(`<![CDTA[x]]>`), "invalid <![ sequence"},
		{"unterminated CDATA", stmt(`<![CDATA[x`), "unexpected EOF in CDATA section"},
		{"unclosed document", strings.TrimSuffix(tx(``), "</Document>"), "unexpected EOF"},
		{"truncated in a tag", tx(``)[:200], "unexpected EOF"},
		{"junk after </", tx(`<Refs></Refs x>`), "invalid characters between </Refs and >"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := sameReading(t, tc.name, []byte(tc.doc))
			std := readWith(readStd, strings.NewReader(tc.doc))
			_, err := Read(strings.NewReader(tc.doc), &record{})
			if !errs.Is(err, errs.BadRequest) || !strings.Contains(err.Error(), "The file is not well-formed XML (line ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a bad request containing %q", err, tc.want)
			}
			// the same line as encoding/xml's
			if line := lineOf(err.Error()); line == "" || !strings.Contains(std.err, "(line "+line+")") {
				t.Fatalf("error %q, encoding/xml's %q (%s)", err, std.err, r.err)
			}
		})
	}
}

func lineOf(msg string) string {
	_, rest, ok := strings.Cut(msg, "(line ")
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(rest, ")")
	return line
}

// TestReadTruncated: a statement cut anywhere is refused (as encoding/xml
// refused it), never read as a shorter statement.
func TestReadTruncated(t *testing.T) {
	t.Parallel()
	doc := tx(`<Refs><EndToEndId>a&amp;b</EndToEndId></Refs><RmtInf><Ustrd><![CDATA[c]]></Ustrd></RmtInf><!-- c -->`)
	for n := range len(doc) {
		_, err := Read(strings.NewReader(doc[:n]), &record{})
		if !errs.Is(err, errs.BadRequest) {
			t.Fatalf("cut at %d (%q): error %v, want a bad request", n, doc[max(0, n-20):n], err)
		}
		if _, err := readStd(strings.NewReader(doc[:n]), &record{}); err == nil {
			t.Fatalf("cut at %d: encoding/xml read it", n)
		}
	}
}

// TestReadEncodings: an encoding that is not read is refused as a bad
// request that names it (encoding/xml's error was an internal one); an
// unsupported XML version too; UTF-8 in any case is read.
func TestReadEncodings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, from, to, want string }{
		{"EBCDIC", `encoding="UTF-8"`, `encoding="EBCDIC-US"`, `the encoding "EBCDIC-US" is not read (UTF-8 and ISO 8859-1 are)`},
		{"XML 1.1", `version="1.0"`, `version="1.1"`, `the XML version "1.1" is not read`},
		{"utf-8 in lower case", `UTF-8`, `utf-8`, ``},
		{"us-ascii", `UTF-8`, `US-ASCII`, ``},
	} {
		_, err := Read(strings.NewReader(strings.Replace(tx(``), tc.from, tc.to, 1)), &record{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errs.Is(err, errs.BadRequest) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want a bad request containing %q", tc.name, err, tc.want)
		}
	}
}

// TestReadHandlerAndReaderErrors: a handler's error and the reader's stop
// the read and come back as they are.
func TestReadHandlerAndReaderErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	if _, err := Read(strings.NewReader(tx(``)), failing{boom}); !errors.Is(err, boom) {
		t.Fatalf("handler error %v", err)
	}
	doc := tx(``)
	r := io.MultiReader(strings.NewReader(doc[:100]), iotest.ErrReader(boom))
	if _, err := Read(r, &record{}); !errors.Is(err, boom) {
		t.Fatalf("reader error %v", err)
	}
}

type failing struct{ err error }

func (f failing) Report(Report) error       { return f.err }
func (f failing) Entry(Report, Entry) error { return f.err }

// TestReadMutations: fixtures mutated at random (seeded: the same each
// run) with what trips XML readers up are read as encoding/xml read them,
// or refused as it refused them; FuzzRead goes on from here.
func TestReadMutations(t *testing.T) {
	t.Parallel()
	seeds := []string{tx(`<RmtInf><Ustrd>&amp;&#233;<![CDATA[x]]><!-- c --></Ustrd></RmtInf>`)}
	for _, file := range []string{"statement-02.xml", "notification-08.xml"} {
		doc, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, string(doc))
	}
	pieces := []string{"<", ">", "/", "&", ";", "]]>", "<![CDATA[", "<!--", "-->", "<?", "?>", `"`, "'", "=", "\r", "\r\n",
		"<!DOCTYPE", "&#x", "&#", "\xfc", "\xc3", " encoding=\"latin1\"", ":", "a:", "xmlns:a='x'", "</Ntry>", "<Ntry>", "\x00", "\t"}
	rng := rand.New(rand.NewPCG(26, 0))
	runs := 1000
	if testing.Short() {
		runs = 300
	}
	for range runs {
		doc := []byte(seeds[rng.IntN(len(seeds))])
		for k := rng.IntN(4) + 1; k > 0; k-- {
			p := rng.IntN(len(doc))
			switch rng.IntN(3) {
			case 0:
				doc = append(doc[:p], doc[min(len(doc), p+1+rng.IntN(12)):]...)
			case 1:
				doc = append(doc[:p], append([]byte(pieces[rng.IntN(len(pieces))]), doc[p:]...)...)
			default:
				doc[p] = byte(rng.IntN(256))
			}
		}
		compareReads(t, doc)
	}
}

// compareReads fails unless Read read doc as encoding/xml did, or both
// refused it.
func compareReads(t *testing.T, doc []byte) {
	t.Helper()
	want := readWith(readStd, bytes.NewReader(doc))
	got := readWith(Read, bytes.NewReader(doc))
	if (want.err == "") != (got.err == "") {
		if strings.Contains(want.err, "invalid XML name") || strings.Contains(got.err, "invalid XML name") {
			return // names beyond ASCII: checked a little less strictly
		}
		t.Fatalf("%q: error %q, encoding/xml's %q", doc, got.err, want.err)
	}
	if want.err == "" && (got.msg != want.msg || !reflect.DeepEqual(got.events, want.events)) {
		t.Fatalf("%q: read %+v %q\nencoding/xml's %+v %q", doc, got.msg, got.events, want.msg, want.events)
	}
}

// FuzzRead: whatever the input, Read reads what encoding/xml read, or
// refuses what it refused.
//
//	go test -run '^$' -fuzz FuzzRead -fuzztime 60s ./internal/camt/
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*-0[28].xml"))
	for _, file := range files {
		doc, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(doc)
	}
	f.Add([]byte(tx(`<RmtInf><Ustrd>&amp;&#233;<![CDATA[x]]><!-- c --></Ustrd></RmtInf>`)))
	f.Fuzz(compareReads)
}
